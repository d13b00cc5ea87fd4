import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../errors.js';
import type { ClaimOutcome, IdempotencyStore } from './idempotency-guard.js';
import type { IdempotencyClaim, StoredResult } from './claims.js';
import type { DB, IdempotencyTable } from '../database/schema.js';

/**
 * Idempotency records, shared by every operation that takes an Idempotency-Key. A record is first a
 * claim (empty response) committed on its own, which every instance sees; the operation's own
 * transaction then writes the response together with what it created. A claim whose operation failed
 * is given back; one left by a crash may be taken over once it is older than the pending lifetime.
 */
export class KyselyIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly pendingTtlMs: number,
  ) {}

  async claim(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    const { id, fingerprint, network, day, createdAt } = claim;
    const inserted = await this.db
      .insertInto('idempotency_keys')
      .values({ id, fingerprint, network, day, created_at: createdAt, response: '', sealed_secret: null })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) return { kind: 'claimed' };
    const row = await this.db.selectFrom('idempotency_keys').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return this.claim(claim); // given back in between: claim again
    if (row.response !== '') return { kind: 'existing', stored: toStored(row) };
    if (row.created_at > createdAt - this.pendingTtlMs) return { kind: 'pending' };
    // A crashed request's claim: taken over by exactly one retry (the guard is the old claim time).
    const taken = await this.db
      .updateTable('idempotency_keys')
      .set({ fingerprint, network, day, created_at: createdAt })
      .where('id', '=', id)
      .where('response', '=', '')
      .where('created_at', '=', row.created_at)
      .returning('id')
      .executeTakeFirst();
    return taken ? { kind: 'claimed' } : { kind: 'pending' };
  }

  async abandon(id: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('id', '=', id).where('response', '=', '').execute();
  }
}

/** Inside the operation's transaction: the claim becomes the stored result, or the operation fails. */
export async function completeClaim(tx: Transaction<DB>, id: string, response: string, sealedSecret: string | null): Promise<void> {
  const done = await tx
    .updateTable('idempotency_keys')
    .set({ response, sealed_secret: sealedSecret })
    .where('id', '=', id)
    .where('response', '=', '')
    .executeTakeFirst();
  // Taken over meanwhile (this request outlived the pending lifetime): let the other one win.
  if (Number(done.numUpdatedRows) !== 1) throw new AppError('request_conflict');
}

function toStored(row: IdempotencyTable): StoredResult {
  return { fingerprint: row.fingerprint, network: row.network, day: row.day, response: row.response, sealedSecret: row.sealed_secret };
}
