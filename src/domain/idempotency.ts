import { AppError } from './errors.js';
import type { IdempotencyClaim, StoredResult } from './ports.js';
import { fingerprint } from './secrets.js';

/**
 * The rules of Idempotency-Key common to every operation that takes one: what identifies a key (the
 * caller and the operation), what identifies a payload, which replays are honoured, and the in-flight
 * guard of this instance.
 */
export class IdempotencyGuard {
  private readonly inFlight = new Set<string>();

  claim(input: { op: string; caller: string; idempotencyKey: string; sender: string | null; payload: unknown; network: string; day: string; now: number }): IdempotencyClaim {
    return {
      id: fingerprint({ op: input.op, caller: input.caller, idempotencyKey: input.idempotencyKey }),
      fingerprint: fingerprint({ key: input.sender, input: input.payload }),
      network: input.network,
      day: input.day,
      createdAt: input.now,
    };
  }

  /** Runs the operation unless the same key is already running on this instance (409 request_conflict). */
  async exclusive<T>(claim: IdempotencyClaim, operation: () => Promise<T>): Promise<T> {
    if (this.inFlight.has(claim.id)) throw new AppError('request_conflict');
    this.inFlight.add(claim.id);
    try {
      return await operation();
    } finally {
      this.inFlight.delete(claim.id);
    }
  }
}

/** A stored result is replayed only for the same payload, from the same network, on the same UTC day. */
export function replayable(stored: StoredResult, claim: IdempotencyClaim): StoredResult {
  if (stored.fingerprint !== claim.fingerprint || stored.network !== claim.network || stored.day !== claim.day) {
    throw new AppError('request_conflict');
  }
  return stored;
}
