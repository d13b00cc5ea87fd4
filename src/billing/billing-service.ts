import crypto from 'node:crypto';
import { API_LIMITS } from '../platform/api-limits.js';
import type { Limits } from '../platform/config.js';
import { RuleError } from '../platform/errors.js';
import type { IdempotencyGuard } from '../platform/idempotency/idempotency-guard.js';
import { networkHash } from '../platform/network.js';
import type { CreditStore, PackRecord, PackStore, UsageStore } from './ports.js';
import { requireAccount, spendingKey, type AccountCaller, type Principal } from '../platform/auth/principal.js';
import { withReservation } from './spending.js';
import { nextUtcMonthStart, utcDay, utcMonth, utcMonthStart, type Clock } from '../platform/time.js';

export type QuoteAction = 'link.create' | 'tracking.purchase';

const { prices } = API_LIMITS;

export interface BillingServiceDeps {
  credits: CreditStore;
  packs: PackStore;
  usage: UsageStore;
  idempotency: IdempotencyGuard;
  limits: Limits;
  networkSecret: string;
  now: Clock;
}

/** Prices and allowances in force: one object for the usage endpoint, quotes and the docs. */
export const pricing = (limits: Limits) => ({
  extraLinkCredits: prices.extraLinkCredits,
  capacityPackCredits: prices.packCredits,
  capacityPackVisits: prices.packVisits,
  freeLinksPerMonth: limits.freeLinksPerMonth,
  freeVisitsPerMonth: limits.freeVisitsPerMonth,
  trackingDailyServiceLimit: limits.trackingDailyLimit,
});

export class BillingService {
  constructor(private readonly deps: BillingServiceDeps) {}

  /** POST /links/capacity: a capacity pack for its price in purchased credits, idempotent. */
  async purchasePack<R>(principal: Principal, idempotencyKey: string, network: string, payload: object, render: (pack: PackRecord) => R): Promise<R> {
    const caller = requireAccount(principal, 'credits:spend');
    const key = spendingKey(caller);
    const now = this.deps.now();
    const net = networkHash(this.deps.networkSecret, network);
    const claim = this.deps.idempotency.claim({
      op: 'POST /links/capacity',
      caller: `account:${caller.accountId}`,
      idempotencyKey,
      sender: key.id,
      payload,
      network: net,
      day: utcDay(now),
      now,
    });
    // The claim comes first: a replay, or a duplicate in flight on any instance, reserves nothing.
    return this.deps.idempotency.run(
      claim,
      async () => {
        const request = {
          accountId: caller.accountId,
          keyId: key.id,
          budget: key.budget,
          month: utcMonth(now),
          amount: prices.packCredits,
          purpose: 'pack' as const,
          now,
        };
        const result = await withReservation(this.deps.credits, request, (reservationId) =>
          this.deps.packs.create({
            claim,
            reservationId,
            pack: { id: crypto.randomUUID(), accountId: caller.accountId, credits: prices.packCredits, visits: prices.packVisits, createdAt: now },
            render: (pack) => JSON.stringify(render(pack)),
          }),
        );
        return render(result);
      },
      (stored) => JSON.parse(stored.response) as R,
    );
  }

  /** POST /quotes: what the action would cost this key now, from live state, reserving nothing. */
  async quote(principal: Principal, action: QuoteAction) {
    const caller = requireAccount(principal, 'links:read');
    const state = await this.spendingState(caller);
    const price = action === 'link.create' ? prices.extraLinkCredits : prices.packCredits;
    const credits = action === 'link.create' && state.freeLinks > 0 ? 0 : price;
    const affordable = credits === 0 || (caller.scopes.has('credits:spend') && state.purchasedAvailable >= credits && state.budgetRemaining >= credits);
    const permitted = action === 'link.create' ? caller.scopes.has('links:write') : caller.scopes.has('credits:spend');
    return {
      action,
      credits,
      maxCredits: price,
      budgetRemaining: state.budgetRemaining,
      purchasedAvailable: state.purchasedAvailable,
      canSpend: permitted && affordable,
      freeLinks: state.freeLinks,
      quoteIsEstimate: true as const,
      trackingDailyServiceLimit: this.deps.limits.trackingDailyLimit,
    };
  }

  /** GET /account/usage. */
  async usage(principal: Principal) {
    const caller = requireAccount(principal, 'links:read');
    const now = this.deps.now();
    const month = utcMonth(now);
    const [state, linkCounts, visits] = await Promise.all([
      this.spendingState(caller),
      this.deps.usage.linkCounts(caller.accountId, utcMonthStart(now)),
      this.deps.usage.visitMonth(caller.accountId, month),
    ]);
    const freeLeft = Math.max(0, this.deps.limits.freeVisitsPerMonth - visits.freeUsed);
    return {
      month,
      resetAt: nextUtcMonthStart(now),
      links: { createdThisMonth: linkCounts.since, freeLeft: state.freeLinks, total: linkCounts.total },
      visits: {
        recordedThisMonth: visits.recorded,
        allowanceLeft: freeLeft + visits.packsLeft,
        freeLeft,
        packsLeft: visits.packsLeft,
      },
      purchasedBalance: state.purchasedAvailable,
      keyBudget: caller.key?.budget ?? null,
      keySpent: state.keySpent,
      pricing: pricing(this.deps.limits),
    };
  }

  private async spendingState({ accountId, key }: AccountCaller) {
    const month = utcMonth(this.deps.now());
    const [balance, keySpent, freeUsed] = await Promise.all([
      this.deps.credits.balance(accountId),
      key === null ? 0 : this.deps.credits.keySpent(key.id, month),
      this.deps.usage.freeLinksUsed(accountId, month),
    ]);
    const purchasedAvailable = balance.purchased - balance.reserved;
    return {
      purchasedAvailable,
      keySpent,
      // A key without a budget (or a session) is limited by the balance alone, so that is what remains of it.
      budgetRemaining: key === null || key.budget === null ? purchasedAvailable : Math.max(0, key.budget - keySpent),
      freeLinks: Math.max(0, this.deps.limits.freeLinksPerMonth - freeUsed),
    };
  }
}

/** What the packs an account holds need from storage (src/billing/pack-store.ts). */
export interface PackLedger {
  list(accountId: string): Promise<PackRecord[]>;
  byId(id: string): Promise<PackRecord | undefined>;
  refund(id: string, now: number, accountId?: string): Promise<{ pack: PackRecord; purchasedBalance: number } | undefined>;
}

/** An account's capacity packs and the refund of an unused one: the one place the CLI and the website use. */
export class PackService {
  constructor(private readonly deps: { packs: PackLedger; now: Clock }) {}

  list(accountId: string): Promise<PackRecord[]> {
    return this.deps.packs.list(accountId);
  }

  /**
   * Refunds an active pack with no recorded visits. With an account (the website), another account's
   * pack is not found; without (the operator), any pack may be refunded.
   */
  async refund(id: string, accountId?: string): Promise<{ pack: PackRecord; purchasedBalance: number }> {
    const refunded = await this.deps.packs.refund(id, this.deps.now(), accountId);
    if (refunded) return refunded;
    const reason = `pack ${id} does not exist, is refunded already, or has recorded visits`;
    const pack = await this.deps.packs.byId(id);
    throw new RuleError(pack === undefined || (accountId !== undefined && pack.accountId !== accountId) ? 'not_found' : 'request_conflict', reason);
  }
}
