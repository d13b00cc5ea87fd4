import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * A per-deployment secret, made once on first start and shared by every instance through the database
 * (the first writer wins; everyone reads the winner's value).
 */
export async function deploymentSecret(db: Kysely<DB>, name: string): Promise<string> {
  await db
    .insertInto('settings')
    .values({ name, value: crypto.randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
