import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * Website sign-in: sessions (only the SHA-256 of each cookie token is kept), one-time tokens for email
 * verification and password reset (hash only too), and credit reservations without a key, since a
 * person signed in to the website spends without one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();
  await db.schema
    .createTable('account_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('account_tokens_account').on('account_tokens').columns(['account_id', 'purpose']).execute();
  await keyOptionalOnReservations(db);
}

/** PostgreSQL drops the constraint; SQLite cannot, so the table (short-lived rows only) is rebuilt. */
async function keyOptionalOnReservations(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) {
    await sql`ALTER TABLE credit_reservations ALTER COLUMN key_id DROP NOT NULL`.execute(db);
    return;
  }
  await db.schema
    .createTable('credit_reservations_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('key_id', 'text', (c) => c.references('api_keys.id'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO credit_reservations_next SELECT id, account_id, key_id, month, amount, purpose, status, created_at, expires_at FROM credit_reservations`.execute(
    db,
  );
  await db.schema.dropTable('credit_reservations').execute();
  await db.schema.alterTable('credit_reservations_next').renameTo('credit_reservations').execute();
  await db.schema.createIndex('credit_reservations_active').on('credit_reservations').columns(['status', 'expires_at']).execute();
}
