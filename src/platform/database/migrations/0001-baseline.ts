import { sql, type Kysely } from 'kysely';

/**
 * The schema as first deployed: accounts and keys, links, the credit ledger and reservations, capacity
 * packs, idempotency records, the change feed of links, and visit recording. Later changes are
 * migrations of their own.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await accounts(db);
  await links(db);
  await credits(db);
  await analytics(db);
}

async function accounts(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    // A balance can never go negative, whatever a bug in the application tries.
    .addColumn('purchased_balance', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`purchased_balance >= 0`),
    )
    // The sum of the active reservations: the available balance is purchased_balance - reserved_credits.
    .addColumn('reserved_credits', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`reserved_credits >= 0`),
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
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

async function links(db: Kysely<any>): Promise<void> {
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
    // Recorded visits, raised by each flush that records some.
    .addColumn('visits', 'bigint', (c) => c.notNull().defaultTo(0))
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
  // Slugs whose redirect may have changed, written in the transaction of the change: instances read it
  // to evict their redirect caches.
  await db.schema
    .createTable('link_changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('link_changes_changed_at').on('link_changes').column('changed_at').execute();
}

async function credits(db: Kysely<any>): Promise<void> {
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

/**
 * Visit recording (docs/adr/0042). Raw visits are never stored: each flush adds its counts to one row
 * per link and UTC day, so reading stats costs the same for ten visits or ten million. No column ever
 * holds a client address.
 */
async function analytics(db: Kysely<any>): Promise<void> {
  // Every dimension's counts as one JSON text, with the day's /s/ and /q/ visits beside it for the
  // daily series. A row is hundreds of bytes to a few kilobytes: SQLite keeps it in an ordinary
  // (rowid) table, where WITHOUT ROWID would move rows past about a kilobyte to overflow pages.
  await db.schema
    .createTable('visit_rollups')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('s', 'bigint', (c) => c.notNull())
    .addColumn('q', 'bigint', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('visit_rollups_pk', ['link_id', 'day'])
    .execute();
  // Service-wide recorded visits per UTC day, against TRACKING_DAILY_LIMIT. last_grant is scratch space
  // so one guarded UPDATE can both cap the counter and say how much it granted.
  await db.schema
    .createTable('visit_days')
    .addColumn('day', 'text', (c) => c.primaryKey())
    .addColumn('recorded', 'bigint', (c) => c.notNull())
    .addColumn('last_grant', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('visit_months')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('recorded', 'bigint', (c) => c.notNull())
    .addColumn('free_used', 'bigint', (c) => c.notNull())
    .addColumn('last_grant', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('visit_months_pk', ['account_id', 'month'])
    .execute();
  await db.schema
    .createTable('visit_gaps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // NULL: every link (no instance was recording); otherwise the one link whose visits were not recorded.
    .addColumn('link_id', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('from_ms', 'bigint', (c) => c.notNull())
    .addColumn('to_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('visit_gaps_link').on('visit_gaps').columns(['link_id', 'reason', 'to_ms']).execute();
  await db.schema
    .createTable('recorder_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('beat_at', 'bigint', (c) => c.notNull())
    // Every visit this instance received before flushed_to is recorded (or reported as a gap).
    .addColumn('flushed_to', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('analytics_state')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
}
