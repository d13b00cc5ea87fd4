import type { Kysely } from 'kysely';

/**
 * The status a link had when an operator suspended it (`active` or `paused`), so that restoring it
 * gives back that status; null while the link is not suspended.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('links').addColumn('status_before_suspension', 'text').execute();
}
