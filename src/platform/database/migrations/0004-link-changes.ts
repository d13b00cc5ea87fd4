import type { Kysely } from 'kysely';

/**
 * A feed of slugs whose redirect may have changed (created, edited, paused, suspended, restored),
 * written in the same transaction as the change. Instances read it to evict their redirect caches.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('link_changes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('link_changes_changed_at').on('link_changes').column('changed_at').execute();
}
