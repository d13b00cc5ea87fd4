import { SqliteAdapter, type Kysely } from 'kysely';

/**
 * A small number per link for the journal (store/link-numbers.ts): a batch names its links by number,
 * four bytes each, where every flush wrote each busy link's 36-character id again. Numbers are handed
 * out by the database (SQLite: the rowid; PostgreSQL: an identity column), so every instance and thread
 * reads the same number for a link. A row is made on a link's first flush and kept.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('link_numbers')
    .addColumn('num', 'integer', (c) => (sqlite ? c.primaryKey() : c.primaryKey().generatedByDefaultAsIdentity()))
    .addColumn('link_id', 'text', (c) => c.notNull().unique())
    .execute();
}
