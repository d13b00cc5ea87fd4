import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * What the compaction of closed days adds up (src/analytics/store/compaction.ts), per link:
 * - level 0, `start` a UTC day: the summary of the day's compacted row of `visit_tallies` (writer
 *   `*`), its version the row's: the unique visitors of each set of columns and the quarter hours'
 *   counts (counts.ts, encodeSummary), so that a read of the day parses neither its counts nor its sketches;
 * - level n ≥ 1, `start` a UTC day whose number (days since 1970) is a multiple of 2^n: the counts of
 *   the 2^n days from it (every dimension but `time`, as `visit_tallies.counts`), so that a window's
 *   breakdowns add up a few blocks instead of every day.
 * `version` rises when a row is written again; a block whose days changed is emptied (`counts` null)
 * until it is built again. Nothing is migrated: the compaction fills the table, and finds the days to
 * compact through `visit_tallies_open`, an index of the rows not yet compacted (partial, so that it
 * holds the last day or two, not the history).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('visit_sums')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('start', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('summary', sqlite ? 'blob' : 'bytea')
    .addColumn('counts', 'text')
    .addPrimaryKeyConstraint('visit_sums_key', ['link_id', 'level', 'start'])
    .execute();
  await sql`create index visit_tallies_open on visit_tallies (day, link_id) where writer <> '*'`.execute(db);
}
