import { sql, type Transaction } from 'kysely';
import type { Dialect } from '../../platform/database/database.js';
import { jsonRows, type Column } from '../../platform/database/json-rows.js';
import type { CountMaps, Counts, Dimension, Recorded, RollupRow } from '../ports.js';
import { breathe } from '../visits.js';
import type { AnalyticsDB } from './analytics-schema.js';

type Tx = Transaction<AnalyticsDB>;

/**
 * Rows per statement. On SQLite a statement runs on the event loop, synchronously: a few hundred rows
 * keep each one to a millisecond or two, and the flush yields between them (breathe).
 */
const ROWS_PER_STATEMENT = 200;

/**
 * Counts from their JSON, to be read only. JSON.parse makes a value named `__proto__` an own property,
 * which reads back like any other; assigned into a plain object it would set the prototype instead, so
 * sums go into maps without one (addCounts).
 */
export const parseCounts = (text: string): Counts => JSON.parse(text) as Counts;

/** A map of values to visits without a prototype (see Counts). */
const valueMap = (): Record<string, number> => Object.create(null) as Record<string, number>;

/** Adds the counts of `from` (of the dimensions named, or all) to `into`, whose value maps have no prototype. */
export function addCounts(into: Counts, from: Counts, dimensions?: readonly Dimension[]): Counts {
  for (const dimension of Object.keys(from) as Dimension[]) {
    if (dimensions !== undefined && !dimensions.includes(dimension)) continue;
    const source = from[dimension]!;
    const target = (into[dimension] ??= valueMap());
    for (const value of Object.keys(source)) target[value] = (target[value] ?? 0) + source[value]!;
  }
  return into;
}

/** Rows of the counts (CSV, window totals): values with a positive count only. */
export function countRows(day: string, counts: Counts): RollupRow[] {
  const rows: RollupRow[] = [];
  for (const dimension of Object.keys(counts) as Dimension[]) {
    const values = counts[dimension]!;
    for (const value of Object.keys(values)) if (values[value]! > 0) rows.push({ day, dimension, value, count: values[value]! });
  }
  return rows;
}

/** Adds a row's stored counts to a flush's. */
function addStored(into: CountMaps, stored: Counts): void {
  for (const dimension of Object.keys(stored) as Dimension[]) {
    const values = stored[dimension]!;
    const target = (into[dimension] ??= new Map());
    for (const value of Object.keys(values)) target.set(value, (target.get(value) ?? 0) + values[value]!);
  }
}

/** The JSON of a rollup row; Object.fromEntries defines each value as its own property, `__proto__` too. */
const countsJson = (counts: CountMaps): string =>
  JSON.stringify(Object.fromEntries(Object.entries(counts).map(([dimension, values]) => [dimension, Object.fromEntries(values)])));

const ROLLUP_COLUMNS: Column[] = [
  ['link_id', 'text'],
  ['day', 'text'],
  ['s', 'bigint'],
  ['q', 'bigint'],
  ['counts', 'text'],
];

/**
 * Adds a flush's counts to the rollup rows (one per link and day), a chunk of rows per statement
 * pair: the rows are read, summed here and written back whole, as one JSON parameter. Only flushes
 * write these rows, and each holds the lock of its days' rows (visit-allowance.ts, lockDay) until it
 * commits, so no other flush changes a row between the read and the write.
 */
export async function addToRollups(tx: Tx, dialect: Dialect, recorded: Recorded[]): Promise<void> {
  for (let i = 0; i < recorded.length; i += ROWS_PER_STATEMENT) {
    const chunk = recorded.slice(i, i + ROWS_PER_STATEMENT);
    const days = [...new Set(chunk.map((r) => r.day))];
    const stored = await tx
      .selectFrom('visit_rollups')
      .select(['link_id', 'day', 'counts'])
      .where(
        'link_id',
        'in',
        chunk.map((r) => r.linkId),
      )
      .where('day', 'in', days)
      .execute();
    const before = new Map(stored.map((row) => [`${row.link_id}|${row.day}`, row.counts]));
    const rows = chunk.map(({ linkId, day, counts }) => {
      const known = before.get(`${linkId}|${day}`);
      if (known !== undefined) addStored(counts, parseCounts(known));
      return [linkId, day, counts.source?.get('s') ?? 0, counts.source?.get('q') ?? 0, countsJson(counts)];
    });
    // "where true": SQLite would read the ON of ON CONFLICT as a join constraint of the SELECT.
    await sql`insert into visit_rollups (link_id, day, s, q, counts)
      select link_id, day, s, q, counts from ${jsonRows(dialect, rows, ROLLUP_COLUMNS)} as v where true
      on conflict (link_id, day) do update set s = excluded.s, q = excluded.q, counts = excluded.counts`.execute(tx);
    await breathe();
  }
}

/**
 * Adds the recorded visits to `links.visits`: one UPDATE … FROM per chunk of links. PostgreSQL first
 * locks the chunk's rows in id order: two flushes of different days (which no day row serialises)
 * must not take them in opposite orders.
 */
export async function addLinkVisits(tx: Tx, dialect: Dialect, perLink: Map<string, number>): Promise<void> {
  const entries = [...perLink].sort(([a], [b]) => (a < b ? -1 : 1));
  for (let i = 0; i < entries.length; i += ROWS_PER_STATEMENT) {
    const chunk = entries.slice(i, i + ROWS_PER_STATEMENT);
    if (dialect === 'postgres') {
      await tx
        .selectFrom('links')
        .select('id')
        .where(
          'id',
          'in',
          chunk.map(([id]) => id),
        )
        .orderBy('id')
        .forUpdate()
        .execute();
    }
    const values = jsonRows(dialect, chunk, [
      ['link_id', 'text'],
      ['n', 'bigint'],
    ]);
    await sql`update links set visits = links.visits + v.n from ${values} as v where links.id = v.link_id`.execute(tx);
    await breathe();
  }
}

/** The analytics_state row whose value changes whenever a flush adds to a day before its own today. */
export const PAST_VERSION = 'past_days_version';

export async function bumpPastVersion(tx: Tx): Promise<void> {
  await tx
    .insertInto('analytics_state')
    .values({ name: PAST_VERSION, value: 1 })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: sql<number>`analytics_state.value + 1` }))
    .execute();
}
