import crypto from 'node:crypto';
import { API_CONSTANTS, type Limits } from '../config.js';
import { AppError } from './errors.js';
import { networkHash } from './network.js';
import type { LinkChanges, LinkRecord, LinkStore, StoredResult } from './ports.js';
import { requireKey, type Principal, type Scope } from './principal.js';
import { fingerprint, hashSecret, newTrialToken, seal, unseal } from './secrets.js';
import { randomSlug, type RandomBytes } from './slugs.js';
import { checkTarget } from './targets.js';
import { days, nextUtcMidnight, utcDay, utcMonth, type Clock } from './time.js';

export interface CreateLinkInput {
  target: string;
  alias?: string;
  title?: string;
  tags?: string;
  maxCredits?: number;
}

export interface LinkServiceDeps {
  links: LinkStore;
  limits: Limits;
  publicUrl: string;
  networkSecret: string;
  now: Clock;
  randomBytes: RandomBytes;
  /** Told about every change that can alter a redirect, so this instance's cache never serves it stale. */
  onLinkChanged: (slug: string) => void;
}

export class LinkService {
  /** Requests of this instance still running, by idempotency scope: a second one is a conflict. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly deps: LinkServiceDeps) {}

  async create<R extends object>(
    principal: Principal,
    input: CreateLinkInput,
    idempotencyKey: string,
    network: string,
    render: (record: LinkRecord) => R,
  ): Promise<R & { trialToken?: string }> {
    const owner = principal.kind === 'key' ? requireKey(principal, 'links:write') : undefined;
    if (principal.kind === 'trial') throw new AppError('api_scope_required');
    if (!owner && (input.alias !== undefined || input.tags !== undefined || (input.maxCredits ?? 0) !== 0)) {
      throw new AppError('invalid_request');
    }
    checkTarget(input.target, this.deps.publicUrl);
    const now = this.deps.now();
    const day = utcDay(now);
    const net = networkHash(this.deps.networkSecret, network);
    const caller = owner ? `account:${owner.accountId}` : `trial:${net}`;
    const claimId = fingerprint({ op: 'POST /links', caller, idempotencyKey });
    const claim = { id: claimId, fingerprint: fingerprint({ key: owner?.keyId ?? null, input }), network: net, day, createdAt: now };
    if (this.inFlight.has(claimId)) throw new AppError('request_conflict');
    this.inFlight.add(claimId);
    try {
      const trialToken = owner ? null : newTrialToken();
      const result = await this.deps.links.create({
        claim,
        owner: owner
          ? { kind: 'account', accountId: owner.accountId, month: utcMonth(now), freeLinksPerMonth: this.deps.limits.freeLinksPerMonth }
          : { kind: 'trial', network: net, day, perNetwork: API_CONSTANTS.trialLinksPerNetwork, perDay: this.deps.limits.trialDailyLimit },
        link: {
          id: crypto.randomUUID(),
          accountId: owner?.accountId ?? null,
          target: input.target,
          title: input.title ?? '',
          tags: input.tags ?? '',
          status: 'active',
          version: 1,
          trial: !owner,
          expiresAt: owner ? null : now + days(API_CONSTANTS.trialLifetimeDays),
          createdAt: now,
          updatedAt: now,
        },
        alias: input.alias,
        nextSlug: () => randomSlug(this.deps.randomBytes),
        trialTokenHash: trialToken && hashSecret(trialToken),
        render: (record) => ({
          response: JSON.stringify(render(record)),
          sealedSecret: trialToken && seal(trialToken, idempotencyKey, net),
        }),
      });
      if (result.kind === 'existing') return this.replay<R>(result.stored, claim, idempotencyKey);
      return { ...render(result.record), ...(trialToken ? { trialToken } : {}) };
    } catch (error) {
      if (error instanceof AppError && error.code === 'rate_limited') {
        throw new AppError('rate_limited', Math.ceil((nextUtcMidnight(now) - now) / 1000));
      }
      if (error instanceof AppError && error.code === 'links_unavailable') throw new AppError('links_unavailable', 60);
      throw error;
    } finally {
      this.inFlight.delete(claimId);
    }
  }

  /** A replay must come with the same payload, from the same network, on the same UTC day. */
  private replay<R>(stored: StoredResult, claim: { fingerprint: string; network: string; day: string }, idempotencyKey: string) {
    if (stored.fingerprint !== claim.fingerprint || stored.network !== claim.network || stored.day !== claim.day) {
      throw new AppError('request_conflict');
    }
    const body = JSON.parse(stored.response) as R;
    return stored.sealedSecret ? { ...body, trialToken: unseal(stored.sealedSecret, idempotencyKey, stored.network) } : body;
  }

  /** A link as its caller may see it: the owner's key with the scope, or that link's own trial token. */
  async access(principal: Principal, id: string, scope: Scope): Promise<LinkRecord> {
    if (principal.kind === 'trial') {
      if (principal.linkId !== id) throw new AppError('api_scope_required');
    } else {
      requireKey(principal, scope);
    }
    const link = await this.deps.links.byId(id);
    const owned = link && (principal.kind === 'trial' || (principal.kind === 'key' && link.accountId === principal.accountId));
    if (!link || !owned) throw new AppError('not_found');
    if (link.expiresAt !== null && link.expiresAt <= this.deps.now()) throw new AppError('link_expired');
    return link;
  }

  async list(principal: Principal, offset: number, search: string | undefined) {
    const key = requireKey(principal, 'links:read');
    const size = API_CONSTANTS.listPageSize;
    const rows = await this.deps.links.list(key.accountId, offset, size + 1, search || undefined);
    return { links: rows.slice(0, size), hasMore: rows.length > size };
  }

  async update(principal: Principal, id: string, version: number, changes: LinkChanges): Promise<LinkRecord> {
    const key = requireKey(principal, 'links:write');
    if (changes.target !== undefined) checkTarget(changes.target, this.deps.publicUrl);
    const updated = await this.deps.links.update(id, key.accountId, version, changes, this.deps.now());
    if (updated) {
      this.deps.onLinkChanged(updated.slug);
      return updated;
    }
    const current = await this.deps.links.byId(id);
    if (!current || current.accountId !== key.accountId) throw new AppError('not_found');
    if (current.status !== 'active' && current.status !== 'paused') throw new AppError('request_conflict');
    throw new AppError('link_changed');
  }

  async trialAllowance(network: string) {
    const now = this.deps.now();
    const used = await this.deps.links.trialLinksCreated(networkHash(this.deps.networkSecret, network), utcDay(now));
    return { remaining: Math.max(0, API_CONSTANTS.trialLinksPerNetwork - used), resetAt: nextUtcMidnight(now) };
  }
}
