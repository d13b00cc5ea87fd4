import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * Visit recording and analytics. Raw visits are never stored: each flush writes one journal batch of
 * pre-aggregated counts, and compaction folds journals into per-day, per-dimension rollups, so reading
 * stats costs the same for ten visits or ten million. No column ever holds a client address.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('links').addColumn('visits', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  let rollups = db.schema
    .createTable('visit_rollups')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    // Stats read one link and dimension over a range of days, summed per value: in this key order the
    // sum streams per value without sorting.
    .addPrimaryKeyConstraint('visit_rollups_pk', ['link_id', 'dimension', 'value', 'day']);
  // SQLite: WITHOUT ROWID keeps rows in the primary-key b-tree itself, so a roll-up upsert writes one
  // b-tree instead of a table and an index, and a stats scan reads counts without a second lookup.
  if (db.getExecutor().adapter instanceof SqliteAdapter) rollups = rollups.modifyEnd(sql`without rowid`);
  await rollups.execute();
  await db.schema
    .createTable('visit_journal')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Links are spread over buckets by id, so a roll-up pass folds one bucket: a short transaction.
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('entries', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('visit_journal_bucket').on('visit_journal').column('bucket').execute();
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
    // Every visit this instance received before flushed_to is durable.
    .addColumn('flushed_to', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('analytics_state')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
}
