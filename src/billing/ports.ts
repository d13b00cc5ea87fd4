import type { Transaction } from 'kysely';
import type { IdempotencyClaim } from '../platform/idempotency/claims.js';
import type { DB } from '../platform/database/schema.js';

/**
 * What billing asks of storage (credits, packs, usage), and the visit allowance it offers visit
 * recording. The stores implement them for SQLite and PostgreSQL; the rules never see a driver.
 */

export interface ReservationRequest {
  accountId: string;
  /** The key spending; null for a session, which has no key budget. */
  keyId: string | null;
  /** The key's monthly budget; null for no limit beyond the balance. */
  budget: number | null;
  month: string;
  amount: number;
  purpose: 'link' | 'pack';
  now: number;
  ttlMs: number;
}

export interface CreditStore {
  /** Holds the amount against the balance and the key's budget; throws credits_required / api_budget_exceeded. */
  reserve(request: ReservationRequest): Promise<string>;
  release(id: string): Promise<void>;
  releaseExpired(now: number): Promise<number>;
  balance(accountId: string): Promise<{ purchased: number; reserved: number }>;
  keySpent(keyId: string, month: string): Promise<number>;
}

export interface PackRecord {
  id: string;
  accountId: string;
  status: 'active' | 'refunded';
  credits: number;
  visits: number;
  visitsUsed: number;
  createdAt: number;
}

export interface PackStore {
  create(command: {
    claim: IdempotencyClaim;
    reservationId: string;
    pack: Omit<PackRecord, 'status' | 'visitsUsed'>;
    render: (record: PackRecord) => string;
  }): Promise<PackRecord>;
}

export interface UsageStore {
  /** All the account's links, and those created at or after `since` (Unix ms). */
  linkCounts(accountId: string, since: number): Promise<{ total: number; since: number }>;
  freeLinksUsed(accountId: string, month: string): Promise<number>;
  /** The account's visits recorded in the month, free visits of it used, and visits left in its active packs. */
  visitMonth(accountId: string, month: string): Promise<{ recorded: number; freeUsed: number; packsLeft: number }>;
}

export type Tx = Transaction<DB>;

/** People's visits an account asks to have recorded in a UTC month (`YYYY-MM`). */
export interface MonthAsk {
  month: string;
  accountId: string;
  visits: number;
}

/**
 * An account's recorded visits: first its free visits of the month (`free` a month), then its
 * packs, oldest first. Visit recording's flush takes them in its own transaction.
 */
export interface VisitAllowance {
  /** The accounts whose free visits and packs, as they stand (read, not locked), hold all that `asks` ask of them. */
  withRoom(asks: readonly MonthAsk[], free: number): Promise<Set<string>>;
  /** Makes the month rows `asks` name and, on PostgreSQL, locks them, by month then account. */
  lockMonths(tx: Tx, asks: readonly MonthAsk[]): Promise<void>;
  /** Up to n visits for each account of `wants` in `month` (its row locked by lockMonths): what each got. */
  grant(tx: Tx, month: string, wants: readonly [string, number][], free: number): Promise<Map<string, number>>;
}
