import { sql, type Kysely } from 'kysely';

/**
 * Reservations, key budgets and recording-capacity packs. accounts.reserved_credits is the sum of the
 * active reservations: the available purchased balance is purchased_balance - reserved_credits.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('reserved_credits', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`reserved_credits >= 0`))
    .execute();
  await db.schema
    .createTable('credit_reservations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('credit_reservations_active').on('credit_reservations').columns(['status', 'expires_at']).execute();
  await db.schema
    .createTable('key_months')
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('spent', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_months_pk', ['key_id', 'month'])
    .execute();
  await db.schema
    .createTable('capacity_packs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('credits', 'bigint', (c) => c.notNull())
    .addColumn('visits', 'bigint', (c) => c.notNull())
    .addColumn('visits_used', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('refunded_at', 'bigint')
    .execute();
  await db.schema.createIndex('capacity_packs_account').on('capacity_packs').columns(['account_id', 'status', 'created_at']).execute();
}
