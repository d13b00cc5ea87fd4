import type { Kysely } from 'kysely';
import { withRoom } from '../day-visits.js';
import type { LinkTable } from '../link-table.js';
import type { AnalyticsDB } from './analytics-schema.js';

/** Ids or numbers per statement (well under SQLite's and PostgreSQL's parameter limits). */
const PER_STATEMENT = 500;
/** The journal stores a number in 32 bits. */
const MAX_NUMBER = 0xffff_ffff;

/**
 * What a flush knows of a link table's numbers: per entry (by the table's index), the link's number in
 * link_numbers, for the first `size` entries.
 */
interface TableNumbers {
  nums: Uint32Array<ArrayBuffer>;
  size: number;
}

/** Per link table (link-table.ts): its links' numbers, asked of the database once per link, not per flush. */
const known = new WeakMap<LinkTable, TableNumbers>();

/**
 * The journal's number of every link of `table` (migration 0010), by the table's index: links the
 * table took since the last call are numbered by the database, the others are remembered. A table
 * only grows; entries added while this waits for the database are numbered by the next call.
 */
export async function linkNumbers(db: Kysely<AnalyticsDB>, table: LinkTable): Promise<Uint32Array> {
  let numbers = known.get(table);
  if (numbers === undefined) known.set(table, (numbers = { nums: new Uint32Array(Math.max(1024, table.size)), size: 0 }));
  const from = numbers.size;
  const to = table.size;
  if (from >= to) return numbers.nums;
  const found = await numbersOf(db, table.links.slice(from, to));
  numbers.nums = withRoom(numbers.nums, to);
  for (let l = from; l < to; l++) numbers.nums[l] = found.get(table.links[l]!)!;
  numbers.size = Math.max(numbers.size, to);
  return numbers.nums;
}

/**
 * The numbers of `ids`, made for those that have none. Outside any transaction: a number is made once
 * and kept, whether the flush that asked for it succeeds or not, and two instances asking for the same
 * new link at once both read the one row that the unique index let in.
 */
export async function numbersOf(db: Kysely<AnalyticsDB>, ids: string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let i = 0; i < ids.length; i += PER_STATEMENT) {
    const chunk = ids.slice(i, i + PER_STATEMENT);
    await db
      .insertInto('link_numbers')
      .values(chunk.map((link_id) => ({ link_id })))
      .onConflict((oc) => oc.column('link_id').doNothing())
      .execute();
    const rows = await db.selectFrom('link_numbers').select(['num', 'link_id']).where('link_id', 'in', chunk).execute();
    for (const row of rows) found.set(row.link_id, Number(row.num));
  }
  for (const id of ids) {
    const num = found.get(id);
    if (num === undefined || num < 1 || num > MAX_NUMBER) throw new Error(`link ${id} has no journal number (got ${String(num)})`);
  }
  return found;
}

/** The link ids of journal numbers; throws for a number no link has (the journal row is then left to a later roll-up). */
export async function linkIds(db: Kysely<AnalyticsDB>, nums: Iterable<number>): Promise<Map<number, string>> {
  const wanted = [...new Set(nums)];
  const ids = new Map<number, string>();
  for (let i = 0; i < wanted.length; i += PER_STATEMENT) {
    const rows = await db
      .selectFrom('link_numbers')
      .select(['num', 'link_id'])
      .where('num', 'in', wanted.slice(i, i + PER_STATEMENT))
      .execute();
    for (const row of rows) ids.set(Number(row.num), row.link_id);
  }
  for (const num of wanted) if (!ids.has(num)) throw new Error(`journal link number ${num} names no link`);
  return ids;
}
