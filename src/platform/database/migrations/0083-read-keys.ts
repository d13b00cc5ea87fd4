import { sql, type Kysely } from 'kysely';

/**
 * The keys and versions of a link's blocks (src/analytics/store/stats-store.ts), which a stats read
 * asks for first, read from an index alone. Without it, each of a 90-day window's 80-odd blocks was
 * read from the table, where a block's counts fill most of a page: a first read on SQLite touched as
 * many pages to learn the blocks' versions (about 1 ms, against 0.1 ms from the index). Blocks change
 * only when the compaction builds them, so flushes do not pay for it.
 *
 * The tallies' keys would gain as much from such an index, but every flush changes the versions of the
 * rows it writes: on PostgreSQL an update of an indexed column is no longer a heap-only (HOT) update,
 * and a flush of 50,000 visits over 10,000 links took a quarter longer (`npm run bench:flush`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index visit_sums_blocks on visit_sums (link_id, level, start, version) where counts is not null`.execute(db);
}
