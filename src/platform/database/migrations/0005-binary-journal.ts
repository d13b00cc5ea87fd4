import { SqliteAdapter, type Kysely } from 'kysely';

/**
 * Journal batches become binary (store/journal.ts): a `data` column holds them. Rows written before
 * keep their text `entries` (new rows write an empty string there) and are still folded.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const binary = db.getExecutor().adapter instanceof SqliteAdapter ? 'blob' : 'bytea';
  await db.schema.alterTable('visit_journal').addColumn('data', binary).execute();
}
