import type { Kysely } from 'kysely';

/**
 * Visits a roll-up pass folded, per link, until the roll-up adds them to `links.visits` in one
 * transaction at its end (store/rollup.ts). A pass updated `links` itself before: each of a roll-up's
 * 64 passes touched about a quarter of the table's pages, 35 MB of SQLite log per roll-up at 10,000
 * busy links, where appending these rows writes a few pages per pass.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('link_visit_deltas')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .execute();
}
