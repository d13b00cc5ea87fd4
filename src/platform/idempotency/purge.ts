import type { Kysely } from 'kysely';
import type { DB } from '../database/schema.js';

export async function purgeIdempotencyBefore(db: Kysely<DB>, before: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
}
