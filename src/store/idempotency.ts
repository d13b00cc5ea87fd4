import type { Kysely, Transaction } from 'kysely';
import type { IdempotencyClaim, StoredResult } from '../domain/ports.js';
import type { DB } from './schema.js';

/**
 * Idempotency records, shared by every operation that takes an Idempotency-Key. The claim is the first
 * statement of the operation's transaction: a parallel duplicate on PostgreSQL waits on the row until
 * the first transaction ends, then sees its result; on SQLite transactions are serialized anyway.
 */
export async function claimKey(tx: Transaction<DB>, claim: IdempotencyClaim): Promise<boolean> {
  const { id, fingerprint, network, day, createdAt } = claim;
  const row = await tx
    .insertInto('idempotency_keys')
    .values({ id, fingerprint, network, day, created_at: createdAt, response: '', sealed_secret: null })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function saveResult(tx: Transaction<DB>, id: string, response: string, sealedSecret: string | null): Promise<void> {
  await tx.updateTable('idempotency_keys').set({ response, sealed_secret: sealedSecret }).where('id', '=', id).execute();
}

export async function storedResult(db: Kysely<DB>, id: string): Promise<StoredResult | undefined> {
  const row = await db.selectFrom('idempotency_keys').selectAll().where('id', '=', id).executeTakeFirst();
  return row && { fingerprint: row.fingerprint, network: row.network, day: row.day, response: row.response, sealedSecret: row.sealed_secret };
}
