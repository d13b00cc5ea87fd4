import type { Kysely } from 'kysely';

/**
 * A row per instance for its last committed flush (by number, with its time): when a flush's COMMIT goes
 * unanswered (the connection dropped), the instance learns whether the flush took from its row before
 * it writes its visits again or forgets them (src/analytics/store/recording-store.ts, settle). Rows of
 * instances gone are removed a day later (src/analytics/store/visit-gaps.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('recorder_flushes')
    .addColumn('instance_id', 'text', (column) => column.notNull())
    .addColumn('flush', 'integer', (column) => column.notNull())
    .addColumn('at', 'bigint', (column) => column.notNull())
    .addPrimaryKeyConstraint('recorder_flushes_key', ['instance_id', 'flush'])
    .execute();
}
