import type { Kysely } from 'kysely';

/**
 * The number of each instance's last committed flush. When a flush's COMMIT goes unanswered (the
 * connection dropped), the instance reads it back to learn whether the flush took, before it writes
 * its visits again or forgets them (src/analytics/store/recording-store.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('recorder_instances')
    .addColumn('last_flush', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
}
