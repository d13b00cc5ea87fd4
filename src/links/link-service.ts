import crypto from 'node:crypto';
import { API_LIMITS } from '../platform/api-limits.js';
import type { Limits } from '../platform/config.js';
import { AppError } from '../platform/errors.js';
import type { EventBus, LinkEvent } from '../platform/events.js';
import { networkHash } from '../platform/network.js';
import type { IdempotencyGuard } from '../platform/idempotency/idempotency-guard.js';
import type { ClaimCommand, CreateLinkCommand, LinkChanges, LinkRecord, LinkStore, ListOptions } from './ports.js';
import { aliasCandidates, splitTags } from './link-tags.js';
import type { CreditStore } from '../billing/ports.js';
import type { StoredResult } from '../platform/idempotency/claims.js';
import { accountOf, requireAccount, spendingKey, type AccountCaller, type Principal, type Scope } from '../platform/auth/principal.js';
import { hashSecret, newTrialToken, seal, unseal } from '../platform/auth/secrets.js';
import { withReservation } from '../billing/spending.js';
import { randomSlug, type RandomBytes } from './slugs.js';
import { checkTarget, interfaceAddresses, resolvesToUs, serviceHosts, type HostResolver, type ServiceHosts } from './targets.js';
import { days, nextUtcMidnight, utcDay, utcMonth, type Clock } from '../platform/time.js';

export interface CreateLinkInput {
  target: string;
  alias?: string;
  title?: string;
  tags?: string;
  maxCredits?: number;
}

export interface LinkServiceDeps {
  links: LinkStore;
  credits: CreditStore;
  idempotency: IdempotencyGuard;
  limits: Limits;
  publicUrl: string;
  /** Further host names the service answers to (PUBLIC_HOSTNAMES): targets may not loop through them. */
  publicHostnames?: readonly string[];
  /** Looks up targets on redirect paths; without it only the target's text is judged. */
  resolveHost?: HostResolver;
  networkSecret: string;
  now: Clock;
  randomBytes: RandomBytes;
  /** Told of every link created or changed (the redirect cache listens, so it never serves one stale). */
  events: EventBus;
  /** Where a link may point beyond the text rules (trust and safety: blocklist, Safe Browsing); throws invalid_request. */
  checkDestination?: (target: string) => Promise<void>;
}

type Command = Omit<CreateLinkCommand, 'owner'>;

const linkEvent = (link: LinkRecord): LinkEvent => ({ linkId: link.id, slug: link.slug, accountId: link.accountId });

export class LinkService {
  private readonly hosts: ServiceHosts;

  constructor(private readonly deps: LinkServiceDeps) {
    this.hosts = serviceHosts(deps.publicUrl, deps.publicHostnames);
  }

  async create<R extends object>(
    principal: Principal,
    input: CreateLinkInput,
    idempotencyKey: string,
    network: string,
    render: (record: LinkRecord) => R,
  ): Promise<R & { trialToken?: string }> {
    if (principal.kind === 'trial') throw new AppError('api_scope_required');
    const key = principal.kind === 'anonymous' ? undefined : requireAccount(principal, 'links:write');
    if (!key && (input.alias !== undefined || input.tags !== undefined || (input.maxCredits ?? 0) !== 0)) {
      throw new AppError('invalid_request');
    }
    await this.checkTarget(input.target);
    const now = this.deps.now();
    const net = networkHash(this.deps.networkSecret, network);
    const claim = this.deps.idempotency.claim({
      op: 'POST /links',
      caller: key ? `account:${key.accountId}` : `trial:${net}`,
      idempotencyKey,
      sender: key?.key?.id ?? null,
      payload: input,
      network: net,
      day: utcDay(now),
      now,
    });
    const replay = (stored: StoredResult): R & { trialToken?: string } => {
      const body = JSON.parse(stored.response) as R;
      return stored.sealedSecret ? { ...body, trialToken: unseal(stored.sealedSecret, idempotencyKey, stored.network) } : body;
    };
    return this.deps.idempotency.run(
      claim,
      async () => {
        const trialToken = key ? null : newTrialToken();
        const command: Command = {
          claim,
          link: {
            id: crypto.randomUUID(),
            accountId: key?.accountId ?? null,
            target: input.target,
            title: input.title ?? '',
            tags: input.tags ?? '',
            status: 'active',
            version: 1,
            trial: !key,
            expiresAt: key ? null : now + days(API_LIMITS.trial.lifetimeDays),
            createdAt: now,
            updatedAt: now,
          },
          alias: input.alias,
          nextSlug: () => randomSlug(this.deps.randomBytes),
          trialTokenHash: trialToken && hashSecret(trialToken),
          render: (record) => ({ response: JSON.stringify(render(record)), sealedSecret: trialToken && seal(trialToken, idempotencyKey, net) }),
        };
        const record = key ? await this.createForAccount(key, input.maxCredits ?? 0, command) : await this.createTrial(command, net);
        // This instance may hold "no such slug" for an alias asked for before it existed.
        this.deps.events.emit('link.created', linkEvent(record));
        return { ...render(record), ...(trialToken ? { trialToken } : {}) };
      },
      replay,
    );
  }

  /**
   * The target rule (targets.ts); for a redirect path on a host name, what DNS says that name is; then
   * whether the destination may be linked to at all (the blocklist, Safe Browsing).
   */
  private async checkTarget(target: string): Promise<void> {
    checkTarget(target, this.hosts);
    if (this.deps.resolveHost && (await resolvesToUs(target, this.deps.resolveHost, interfaceAddresses))) {
      throw new AppError('invalid_request');
    }
    await this.deps.checkDestination?.(target);
  }

  /** Free while the month's allowance lasts; past it, the extra-link price if the caller allowed it. */
  private async createForAccount(caller: AccountCaller, maxCredits: number, command: Command): Promise<LinkRecord> {
    const { accountId } = caller;
    const now = command.link.createdAt;
    const month = utcMonth(now);
    try {
      return await this.deps.links.create({ ...command, owner: { kind: 'account', accountId, month, freeLinksPerMonth: this.deps.limits.freeLinksPerMonth } });
    } catch (error) {
      const price = API_LIMITS.prices.extraLinkCredits;
      if (!(error instanceof AppError && error.code === 'link_allowance_required') || maxCredits < price) throw error;
      if (!caller.scopes.has('credits:spend')) throw new AppError('api_scope_required');
      const key = spendingKey(caller);
      // The reservation's lifetime starts when it is made, not when the request began.
      const request = { accountId, keyId: key.id, budget: key.budget, month, amount: price, purpose: 'link' as const, now: this.deps.now() };
      return withReservation(this.deps.credits, request, (reservationId) =>
        this.deps.links.create({ ...command, owner: { kind: 'paid', accountId, reservationId } }),
      );
    }
  }

  private async createTrial(command: Command, network: string): Promise<LinkRecord> {
    const now = command.link.createdAt;
    const owner = {
      kind: 'trial' as const,
      network,
      day: utcDay(now),
      perNetwork: API_LIMITS.trial.linksPerNetworkPerDay,
      perDay: this.deps.limits.trialDailyLimit,
    };
    // The store names the wait: midnight UTC for the daily caps, a few seconds when no free slug was found.
    return this.deps.links.create({ ...command, owner });
  }

  /** A link as its caller may see it: the owner's key with the scope, or that link's own trial token. */
  async access(principal: Principal, id: string, scope: Scope): Promise<LinkRecord> {
    if (principal.kind === 'trial') {
      if (principal.linkId !== id) throw new AppError('api_scope_required');
    } else {
      requireAccount(principal, scope);
    }
    const link = await this.deps.links.byId(id);
    const owned = link && (principal.kind === 'trial' || link.accountId === accountOf(principal));
    if (!link || !owned) throw new AppError('not_found');
    if (link.expiresAt !== null && link.expiresAt <= this.deps.now()) throw new AppError('link_expired');
    return link;
  }

  async list(principal: Principal, offset: number, search: string | undefined, options: ListOptions = {}) {
    const key = requireAccount(principal, 'links:read');
    const size = API_LIMITS.links.pageSize;
    const rows = await this.deps.links.list(key.accountId, offset, size + 1, search || undefined, options);
    return { links: rows.slice(0, size), hasMore: rows.length > size };
  }

  /** Every link of the account for the CSV export, newest first. */
  async all(principal: Principal): Promise<LinkRecord[]> {
    const key = requireAccount(principal, 'links:read');
    return this.deps.links.all(key.accountId, API_LIMITS.links.exportMax);
  }

  /**
   * The account's tags, each once (case aside), in alphabetical order. Of a tag's spellings the first in
   * code-unit order is shown ("Poster" before "poster"), so the answer never depends on row order.
   */
  async tags(principal: Principal): Promise<{ tag: string }[]> {
    const key = requireAccount(principal, 'links:read');
    const seen = new Map<string, string>();
    for (const text of await this.deps.links.tagTexts(key.accountId))
      for (const tag of splitTags(text)) {
        const shown = seen.get(tag.toLowerCase());
        if (shown === undefined || tag < shown) seen.set(tag.toLowerCase(), tag);
      }
    return [...seen.values()].sort((a, b) => a.localeCompare(b)).map((tag) => ({ tag }));
  }

  /** Whether an alias is free and, when it is not, a free one like it to take instead. */
  async aliasAvailability(principal: Principal, alias: string): Promise<{ alias: string; available: boolean; suggestion?: string }> {
    requireAccount(principal, 'links:write');
    const candidates = aliasCandidates(alias, this.deps.randomBytes);
    const taken = await this.deps.links.takenSlugs([alias, ...candidates]);
    if (!taken.has(alias)) return { alias, available: true };
    const suggestion = candidates.find((candidate) => !taken.has(candidate));
    return { alias, available: false, ...(suggestion ? { suggestion } : {}) };
  }

  /** Which of many aliases are free (the website's import checks its rows at once); no suggestions. */
  async aliasesAvailability(principal: Principal, aliases: string[]): Promise<{ alias: string; available: boolean }[]> {
    requireAccount(principal, 'links:write');
    const taken = await this.deps.links.takenSlugs([...new Set(aliases)]);
    return aliases.map((alias) => ({ alias, available: !taken.has(alias) }));
  }

  /**
   * A trial link made in this browser becomes a link of the account, with no expiry: a free link of
   * the month while they last, past them the extra-link price when the caller allowed it, as creation.
   */
  async claim(principal: Principal, id: string, trialToken: string, maxCredits: number): Promise<LinkRecord> {
    const caller = requireAccount(principal, 'links:write');
    const now = this.deps.now();
    const base = { id, trialTokenHash: hashSecret(trialToken), now };
    const month = utcMonth(now);
    let claimed: LinkRecord;
    try {
      claimed = await this.deps.links.claim({
        ...base,
        owner: { kind: 'account', accountId: caller.accountId, month, freeLinksPerMonth: this.deps.limits.freeLinksPerMonth },
      });
    } catch (error) {
      const price = API_LIMITS.prices.extraLinkCredits;
      if (!(error instanceof AppError && error.code === 'link_allowance_required') || maxCredits < price) throw error;
      if (!caller.scopes.has('credits:spend')) throw new AppError('api_scope_required');
      const key = spendingKey(caller);
      const request = { accountId: caller.accountId, keyId: key.id, budget: key.budget, month, amount: price, purpose: 'link' as const, now: this.deps.now() };
      claimed = await withReservation(this.deps.credits, request, (reservationId) =>
        this.deps.links.claim({ ...base, owner: { kind: 'paid', accountId: caller.accountId, reservationId } } satisfies ClaimCommand),
      );
    }
    this.deps.events.emit('link.changed', linkEvent(claimed));
    return claimed;
  }

  async update(principal: Principal, id: string, version: number, changes: LinkChanges): Promise<LinkRecord> {
    const key = requireAccount(principal, 'links:write');
    if (changes.target !== undefined) await this.checkTarget(changes.target);
    const updated = await this.deps.links.update(id, key.accountId, version, changes, this.deps.now());
    if (updated) {
      this.deps.events.emit('link.changed', linkEvent(updated));
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
    return { remaining: Math.max(0, API_LIMITS.trial.linksPerNetworkPerDay - used), resetAt: nextUtcMidnight(now) };
  }
}
