import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * Rollup rows gain a writer: one row per link, UTC day and recorder run, which that run rewrites with
 * its running totals (docs/adr/0057). Rows from before keep the writer '' that no run uses.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) {
    await sql`ALTER TABLE visit_rollups ADD COLUMN writer text NOT NULL DEFAULT ''`.execute(db);
    await sql`ALTER TABLE visit_rollups ALTER COLUMN writer DROP DEFAULT`.execute(db);
    await sql`ALTER TABLE visit_rollups DROP CONSTRAINT visit_rollups_pk`.execute(db);
    await sql`ALTER TABLE visit_rollups ADD CONSTRAINT visit_rollups_pk PRIMARY KEY (link_id, day, writer)`.execute(db);
    return;
  }
  // SQLite cannot change a primary key: the table is rebuilt.
  await db.schema
    .createTable('visit_rollups_next')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('writer', 'text', (c) => c.notNull())
    .addColumn('s', 'bigint', (c) => c.notNull())
    .addColumn('q', 'bigint', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('visit_rollups_pk', ['link_id', 'day', 'writer'])
    .execute();
  await sql`INSERT INTO visit_rollups_next SELECT link_id, day, '', s, q, counts FROM visit_rollups`.execute(db);
  await db.schema.dropTable('visit_rollups').execute();
  await db.schema.alterTable('visit_rollups_next').renameTo('visit_rollups').execute();
}
