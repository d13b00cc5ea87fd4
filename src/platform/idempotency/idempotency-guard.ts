import { AppError } from '../errors.js';
import type { IdempotencyClaim, StoredResult } from './claims.js';
import { fingerprint } from '../auth/secrets.js';

export type ClaimOutcome = { kind: 'claimed' } | { kind: 'pending' } | { kind: 'existing'; stored: StoredResult };

export interface IdempotencyStore {
  /** Claims the key for this request, or says who holds it: a request in flight, or a stored result. */
  claim(claim: IdempotencyClaim): Promise<ClaimOutcome>;
  /** Gives back a claim whose operation failed (a stored result is never given back). */
  abandon(id: string): Promise<void>;
}

/** How long a claim may wait for its result before a retry may take it over (a crashed request). */
export const PENDING_CLAIM_TTL_MS = 60_000;

/**
 * The rules of Idempotency-Key common to every operation that takes one: what identifies a key (the
 * caller and the operation), what identifies a payload, which replays are honoured, and the order:
 * the key is claimed where every instance sees it before anything is reserved or created, so a
 * duplicate in flight anywhere is 409 request_conflict and never pays or creates twice.
 */
export class IdempotencyGuard {
  /** Claims of this instance still running: a duplicate is refused without a database round trip. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly store: IdempotencyStore) {}

  claim(input: {
    op: string;
    caller: string;
    idempotencyKey: string;
    sender: string | null;
    payload: unknown;
    network: string;
    day: string;
    now: number;
  }): IdempotencyClaim {
    return {
      id: fingerprint({ op: input.op, caller: input.caller, idempotencyKey: input.idempotencyKey }),
      fingerprint: fingerprint({ key: input.sender, input: input.payload }),
      network: input.network,
      day: input.day,
      createdAt: input.now,
    };
  }

  /**
   * Runs the operation once per key: a stored result is replayed (same payload, network and UTC day
   * only), a claim in flight is 409, and a failed operation gives its claim back so the same key may
   * be retried once the cause is fixed. The operation itself writes the result in its transaction.
   */
  async run<T>(claim: IdempotencyClaim, operation: () => Promise<T>, replay: (stored: StoredResult) => T): Promise<T> {
    if (this.inFlight.has(claim.id)) throw new AppError('request_conflict');
    this.inFlight.add(claim.id);
    try {
      const outcome = await this.store.claim(claim);
      if (outcome.kind === 'pending') throw new AppError('request_conflict');
      if (outcome.kind === 'existing') return replay(replayable(outcome.stored, claim));
      try {
        return await operation();
      } catch (error) {
        await this.store.abandon(claim.id).catch(() => {});
        throw error;
      }
    } finally {
      this.inFlight.delete(claim.id);
    }
  }
}

/** A stored result is replayed only for the same payload, from the same network, on the same UTC day. */
function replayable(stored: StoredResult, claim: IdempotencyClaim): StoredResult {
  if (stored.fingerprint !== claim.fingerprint || stored.network !== claim.network || stored.day !== claim.day) {
    throw new AppError('request_conflict');
  }
  return stored;
}
