import { sql, type Kysely } from 'kysely';

/** Accounts, keys, links, the free-allowance and trial counters, idempotency records, the credit ledger. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('purchased_balance', 'bigint', (c) =>
      // A balance can never go negative, whatever a bug in the application tries.
      c.notNull().defaultTo(0).check(sql`purchased_balance >= 0`),
    )
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text')
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('budget', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema
    .createTable('links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('trial', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('trial_token_hash', 'text', (c) => c.unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('links_account_created').on('links').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema
    .createTable('account_months')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('links_created', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_months_pk', ['account_id', 'month'])
    .execute();
  await db.schema
    .createTable('trial_days')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('links_created', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('trial_days_pk', ['network', 'day'])
    .execute();
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('sealed_secret', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();
  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('balance_after', 'bigint', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('credit_ledger_account').on('credit_ledger').columns(['account_id', 'created_at']).execute();
  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
