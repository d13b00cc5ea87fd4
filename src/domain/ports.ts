/**
 * What the domain asks of storage. The store layer implements these for SQLite and PostgreSQL; the
 * domain never sees a driver.
 */
import type { Scope } from './principal.js';

export type LinkStatus = 'active' | 'paused' | 'suspended' | 'deleted';

export interface LinkRecord {
  id: string;
  accountId: string | null;
  slug: string;
  target: string;
  title: string;
  tags: string;
  status: LinkStatus;
  version: number;
  trial: boolean;
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface IdempotencyClaim {
  id: string;
  fingerprint: string;
  network: string;
  day: string;
  createdAt: number;
}

export interface StoredResult {
  fingerprint: string;
  network: string;
  day: string;
  response: string;
  sealedSecret: string | null;
}

/** Who pays for a new link: an account's monthly free allowance, or the trial counters of a network. */
export type LinkOwner =
  | { kind: 'account'; accountId: string; month: string; freeLinksPerMonth: number }
  | { kind: 'trial'; network: string; day: string; perNetwork: number; perDay: number };

export interface CreateLinkCommand {
  claim: IdempotencyClaim;
  owner: LinkOwner;
  link: Omit<LinkRecord, 'slug'>;
  /** The alias, when one was asked for; otherwise slugs come from nextSlug until one is free. */
  alias: string | undefined;
  nextSlug: () => string;
  trialTokenHash: string | null;
  /** The response to keep for replays, computed inside the transaction from the saved link. */
  render: (record: LinkRecord) => { response: string; sealedSecret: string | null };
}

export type CreateLinkResult =
  | { kind: 'created'; record: LinkRecord }
  | { kind: 'existing'; stored: StoredResult };

export interface LinkChanges {
  target?: string;
  title?: string;
  tags?: string;
  status?: 'active' | 'paused';
}

export interface LinkStore {
  create(command: CreateLinkCommand): Promise<CreateLinkResult>;
  byId(id: string): Promise<LinkRecord | undefined>;
  bySlug(slug: string): Promise<LinkRecord | undefined>;
  byTrialTokenHash(hash: string): Promise<LinkRecord | undefined>;
  list(accountId: string, offset: number, limit: number, search: string | undefined): Promise<LinkRecord[]>;
  /** Applies the changes only when the version matches and the link is active or paused. */
  update(id: string, accountId: string, version: number, changes: LinkChanges, now: number): Promise<LinkRecord | undefined>;
  trialLinksCreated(network: string, day: string): Promise<number>;
}

export interface KeyRecord {
  id: string;
  accountId: string;
  keyHash: string;
  scopes: Scope[];
  budget: number | null;
}

export interface KeyStore {
  /** An unrevoked key of an existing account, looked up by the hash of its secret. */
  activeKeyByHash(hash: string): Promise<KeyRecord | undefined>;
}
