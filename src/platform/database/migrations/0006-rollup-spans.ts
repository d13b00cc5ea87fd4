import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * Stats windows read by day (store/rollup-spans.ts): an index that reaches a link's rows of one
 * dimension for a range of days without walking every day it ever had, and the span rollups (visits of
 * 7 and 28 days per value) that let a 90-day window read at most 10 rows per value instead of 90.
 *
 * Both carry count so a read never visits the table. SQLite has no INCLUDE: count is the last key
 * column. PostgreSQL: INCLUDE (count) gives index-only scans; without it the planner priced the heap
 * visits so high that it sent these small reads to parallel workers (10 ms of start-up on two cores).
 * The price: a count in an index makes a roll-up's update a non-HOT one (measured 26 to 29 µs per
 * upserted row, 21 to 24 with a plain index, 14 to 20 with none; docs/decisions.md, "Stats reads").
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) {
    await db.schema.createIndex('visit_rollups_by_day').on('visit_rollups').columns(['link_id', 'dimension', 'day', 'value', 'count']).execute();
  } else {
    await sql`create index visit_rollups_by_day on visit_rollups (link_id, dimension, day, value) include (count)`.execute(db);
  }
  let spans = db.schema
    .createTable('visit_rollup_spans')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('span', 'integer', (c) => c.notNull())
    .addColumn('start_day', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull());
  // A window reads whole spans: one range per link, dimension, length and start, every value in it.
  // SQLite: as for visit_rollups (0003), WITHOUT ROWID keeps the rows in the primary-key b-tree itself.
  if (sqlite) spans = spans.addPrimaryKeyConstraint('visit_rollup_spans_pk', ['link_id', 'dimension', 'span', 'start_day', 'value']).modifyEnd(sql`without rowid`);
  await spans.execute();
  if (!sqlite) {
    await sql`alter table visit_rollup_spans add constraint visit_rollup_spans_pk
      primary key (link_id, dimension, span, start_day, value) include (count)`.execute(db);
  }
}
