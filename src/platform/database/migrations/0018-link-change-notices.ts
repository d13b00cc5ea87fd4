import { sql, SqliteAdapter, type Kysely } from 'kysely';

/**
 * PostgreSQL announces every row written to the change feed with NOTIFY on the channel
 * `link_changes` (payload: the slug), delivered when the writing transaction commits, whoever wrote
 * it: an instance, the CLI, a later tool. Instances LISTEN and evict the slug at once; the feed stays
 * the safety net (docs/adr/0014). SQLite has no such push: its instances read the feed every half TTL.
 * The channel's name is repeated in src/platform/database/notices.ts (migrations never import app code).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`
    CREATE FUNCTION notify_link_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('link_changes', NEW.slug);
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER link_changes_notify AFTER INSERT ON link_changes FOR EACH ROW EXECUTE FUNCTION notify_link_change()`.execute(db);
}
