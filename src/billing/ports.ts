import type { IdempotencyClaim } from '../platform/idempotency/claims.js';

/**
 * What billing asks of storage (credits, packs, usage) and of analytics (an account's recording this
 * month). The stores implement them for SQLite and PostgreSQL; the rules never see a driver.
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
}

/** What visit recording reports about an account's month (owned by the analytics module). */
export interface RecordingUsage {
  accountRecording(accountId: string, month: string): Promise<{ recordedThisMonth: number; freeLeft: number; packsLeft: number }>;
}
