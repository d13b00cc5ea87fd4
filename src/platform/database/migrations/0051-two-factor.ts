import type { Kysely } from 'kysely';

/**
 * Two-factor sign-in (docs/adr/0081): an account's TOTP secret once confirmed, the one being set up
 * until then, the last step a code was accepted for (a code is good once), and one-time recovery
 * codes, kept as SHA-256 hashes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('totp_secret', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('totp_pending_secret', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('totp_last_step', 'bigint').execute();
  await db.schema
    .createTable('recovery_codes')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('recovery_codes_pk', ['account_id', 'code_hash'])
    .execute();
}
