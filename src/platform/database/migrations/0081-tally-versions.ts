import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * A tally row's `version` rises on every write of it, so that a reader that keeps a link's day added
 * up (src/analytics/store/stats-store.ts) tells from the keys and versions alone whether it still
 * holds what the rows hold. The table is made anew with `version` before the counts and sketches:
 * SQLite reads a column after a long value by walking that value's overflow pages.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('visit_tallies_versioned')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('writer', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('visitors', sqlite ? 'blob' : 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('visit_tallies_key', ['link_id', 'day', 'writer'])
    .execute();
  await sql`insert into visit_tallies_versioned (link_id, day, writer, version, counts, visitors)
    select link_id, day, writer, 1, counts, visitors from visit_tallies`.execute(db);
  await db.schema.dropTable('visit_tallies').execute();
  await db.schema.alterTable('visit_tallies_versioned').renameTo('visit_tallies').execute();
}
