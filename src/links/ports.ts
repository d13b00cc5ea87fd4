/**
 * What the domain asks of storage. The store layer implements these for SQLite and PostgreSQL; the
 * domain never sees a driver.
 */
import type { IdempotencyClaim } from '../platform/idempotency/claims.js';

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
  /** Visits recorded for this link (rolled up by analytics). */
  visits: number;
}

/** Who pays for a new link: the account's monthly free allowance, a credit reservation, or a network's trial counters. */
export type LinkOwner =
  | { kind: 'account'; accountId: string; month: string; freeLinksPerMonth: number }
  | { kind: 'paid'; accountId: string; reservationId: string }
  | { kind: 'trial'; network: string; day: string; perNetwork: number; perDay: number };

export interface CreateLinkCommand {
  claim: IdempotencyClaim;
  owner: LinkOwner;
  link: Omit<LinkRecord, 'slug' | 'visits'>;
  /** The alias, when one was asked for; otherwise slugs come from nextSlug until one is free. */
  alias: string | undefined;
  nextSlug: () => string;
  trialTokenHash: string | null;
  /** The response to keep for replays, computed inside the transaction from the saved link. */
  render: (record: LinkRecord) => { response: string; sealedSecret: string | null };
}

export interface LinkChanges {
  target?: string;
  title?: string;
  tags?: string;
  status?: 'active' | 'paused';
}

/** A trial link taken into an account: who pays (a free link of the month, or a reservation) and the token's hash. */
export interface ClaimCommand {
  id: string;
  trialTokenHash: string;
  owner: Extract<LinkOwner, { kind: 'account' | 'paid' }>;
  now: number;
}

/** How a page of links is ordered: newest first, most visited first, or by title (untitled last). */
export type LinkSort = 'newest' | 'visits' | 'title';

export interface ListOptions {
  /** Only links carrying this tag (tags are separated by commas; case is ignored). */
  tag?: string;
  sort?: LinkSort;
}

export interface LinkStore {
  /** Saves the link and completes its Idempotency-Key claim with the response, in one transaction. */
  create(command: CreateLinkCommand): Promise<LinkRecord>;
  byId(id: string): Promise<LinkRecord | undefined>;
  bySlug(slug: string): Promise<LinkRecord | undefined>;
  byTrialTokenHash(hash: string): Promise<LinkRecord | undefined>;
  list(accountId: string, offset: number, limit: number, search: string | undefined, options?: ListOptions): Promise<LinkRecord[]>;
  /** Every link of the account, newest first, at most `limit` when given. */
  all(accountId: string, limit?: number): Promise<LinkRecord[]>;
  /** The distinct tags texts of the account's links. */
  tagTexts(accountId: string): Promise<string[]>;
  takenSlugs(slugs: string[]): Promise<Set<string>>;
  /** Makes a trial link the account's (throws not_found, link_expired, request_conflict or the payment's error). */
  claim(command: ClaimCommand): Promise<LinkRecord>;
  /** Applies the changes only when the version matches and the link is active or paused. */
  update(id: string, accountId: string, version: number, changes: LinkChanges, now: number): Promise<LinkRecord | undefined>;
  trialLinksCreated(network: string, day: string): Promise<number>;
  /** Changes (creations, edits, status changes) of slugs at or after `since` (Unix ms): the feed that evicts redirect caches. */
  changesSince(since: number): Promise<LinkChange[]>;
}

/** A row of the change feed: one transaction's change of a slug, at its writer's clock. */
export interface LinkChange {
  id: string;
  slug: string;
  changedAt: number;
}
