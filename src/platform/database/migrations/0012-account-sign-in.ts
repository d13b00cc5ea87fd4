import { sql, type Kysely } from 'kysely';

/**
 * Signing in to the website and showing keys there: an account's password hash (null for an account
 * without a password) and when its email was verified; a key's visible prefix and last four
 * characters (never enough to use it) and when it was last used. Accounts made before this were all
 * made by the operator, whose accounts are verified at creation.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('password_hash', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('verified_at', 'bigint').execute();
  await sql`UPDATE accounts SET verified_at = created_at`.execute(db);
  await db.schema.alterTable('api_keys').addColumn('prefix', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('last4', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').columns(['account_id', 'created_at']).execute();
}
