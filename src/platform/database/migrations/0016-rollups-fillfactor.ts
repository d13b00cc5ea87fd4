import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * PostgreSQL leaves half of each new page of `visit_rollups` free. A flush rewrites its writer's row of
 * every busy link of the day; with room on the row's page the new version stays there without a new
 * entry in the primary key's index (a HOT update), and the versions the flush before left are pruned
 * on the page. SQLite has no such setting.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`ALTER TABLE visit_rollups SET (fillfactor = 50)`.execute(db);
}
