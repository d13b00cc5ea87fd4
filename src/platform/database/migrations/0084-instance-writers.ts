import type { Kysely } from 'kysely';

/**
 * Each running instance's writer: the name its flushes write its rows of `visit_tallies` under
 * (src/analytics/counts.ts, Tallies). A writer no instance lists will never write again, so the
 * compaction may add its rows into their days' one row before the days close
 * (src/analytics/store/compaction.ts). Rows of instances from before this column read NULL, which
 * holds that back until they are gone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('recorder_instances').addColumn('writer', 'text').execute();
}
