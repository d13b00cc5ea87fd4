import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * Stats windows read by day (store/rollup-spans.ts): an index that reaches a link's rows of one
 * dimension for a range of days without walking every day it ever had, and the span rollups (visits of
 * 7 and 28 days per value) that let a 90-day window read about 12 rows per value instead of 90.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  // SQLite: count is part of the index so a read never looks a row up in the table. PostgreSQL: it is
  // not, so a roll-up that only adds to a count stays a HOT update that writes no index entry.
  await db.schema
    .createIndex('visit_rollups_by_day')
    .on('visit_rollups')
    .columns(sqlite ? ['link_id', 'dimension', 'day', 'value', 'count'] : ['link_id', 'dimension', 'day', 'value'])
    .execute();
  let spans = db.schema
    .createTable('visit_rollup_spans')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('span', 'integer', (c) => c.notNull())
    .addColumn('start_day', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    // A window reads whole spans: one range per link, dimension, length and start, every value in it.
    .addPrimaryKeyConstraint('visit_rollup_spans_pk', ['link_id', 'dimension', 'span', 'start_day', 'value']);
  // As for visit_rollups (0003): the rows live in the primary-key b-tree itself.
  if (sqlite) spans = spans.modifyEnd(sql`without rowid`);
  await spans.execute();
}
