import { sql, type Transaction } from 'kysely';
import type { Dialect } from '../../platform/database/database.js';
import { jsonRows, type Column } from '../../platform/database/json-rows.js';
import { DIMENSIONS, type CountMaps, type Counts, type Dimension, type Recorded, type RollupRow } from '../ports.js';
import { breathe } from '../visits.js';
import type { AnalyticsDB } from './analytics-schema.js';

type Tx = Transaction<AnalyticsDB>;

/**
 * Rows per statement. On SQLite a statement runs on the event loop, synchronously: ten rows keep each
 * one to a fraction of a millisecond, and the flush may yield after each (breathe), so a redirect that
 * arrives during a flush waits little longer than a slice (the p99 of `npm run bench:redirect`).
 * PostgreSQL's run elsewhere, and fewer round trips keep its flushes short.
 */
const rowsPerStatement = (dialect: Dialect) => (dialect === 'sqlite' ? 10 : 200);

/** After a statement: SQLite's ran on the event loop; awaiting PostgreSQL's let redirects through already. */
const afterStatement = (dialect: Dialect) => (dialect === 'sqlite' ? breathe() : undefined);

/**
 * A rollup row's `counts` is one JSON object of counts or several separated by commas: a flush appends
 * its own counts to the row's text in SQL, without reading the row, and a row longer than this is
 * summed into one object again by the flush that made it so (compact). Reading and rewriting every
 * busy link's row on each flush cost about 50 µs a row, most of it JSON; an append costs a few.
 */
export const COMPACT_AT_CHARS = 1024;

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

/**
 * A row's counts, to be read only. JSON.parse makes a value named `__proto__` an own property, which
 * reads back like any other; several appended objects are summed into maps without a prototype
 * (addCounts), where assigning `__proto__` would otherwise set the prototype.
 */
export function parseCounts(text: string): Counts {
  const parts = JSON.parse(`[${text}]`) as Counts[];
  if (parts.length === 1) return parts[0]!;
  const sum: Counts = {};
  for (const part of parts) addCounts(sum, part);
  return sum;
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

/**
 * The JSON of a flush's counts for one row, written straight from its maps: a flush writes one per
 * busy link, and converting every map to an object for JSON.stringify first cost twice as much.
 * Values are quoted by JSON.stringify; counts are integers.
 */
function countsJson(counts: CountMaps): string {
  let json = '';
  for (const dimension of DIMENSIONS) {
    const values = counts[dimension];
    if (values.size === 0) continue;
    let inner = '';
    for (const [value, n] of values) inner += `${inner === '' ? '' : ','}${JSON.stringify(value)}:${n}`;
    json += `${json === '' ? '' : ','}"${dimension}":{${inner}}`;
  }
  return `{${json}}`;
}

const ROLLUP_COLUMNS: Column[] = [
  ['link_id', 'text'],
  ['day', 'text'],
  ['s', 'bigint'],
  ['q', 'bigint'],
  ['counts', 'text'],
];

/**
 * Adds a flush's counts to the rollup rows (one per link and day), a chunk of rows per statement, as
 * one JSON parameter: `s` and `q` are added in SQL and the counts' JSON appended to the row's text.
 * The statement returns the text of rows that have grown past COMPACT_AT_CHARS, which are summed here
 * and written back as one object. Only flushes write these rows, and each holds the lock of its days'
 * rows (visit-allowance.ts, lockDay) until it commits, so no other flush changes a row in between.
 */
export async function addToRollups(tx: Tx, dialect: Dialect, recorded: Recorded[]): Promise<void> {
  const chunk = rowsPerStatement(dialect);
  for (let i = 0; i < recorded.length; i += chunk) {
    const rows = recorded.slice(i, i + chunk).map((r) => {
      const { s, q, counts } = r.rollup();
      return [r.linkId, r.day, s, q, countsJson(counts)];
    });
    // "where true": SQLite would read the ON of ON CONFLICT as a join constraint of the SELECT.
    const { rows: returned } = await sql<{ link_id: string; day: string; counts: string | null }>`insert into visit_rollups (link_id, day, s, q, counts)
      select link_id, day, s, q, counts from ${jsonRows(dialect, rows, ROLLUP_COLUMNS)} as v where true
      on conflict (link_id, day) do update set s = visit_rollups.s + excluded.s, q = visit_rollups.q + excluded.q,
        counts = visit_rollups.counts || ',' || excluded.counts
      returning link_id, day, case when length(counts) > ${COMPACT_AT_CHARS} then counts end as counts`.execute(tx);
    const long = returned.filter((row) => row.counts !== null);
    if (long.length > 0) {
      // The statement that returned them may have used up the slice: summing them may wait for a breath.
      await afterStatement(dialect);
      const compacted = long.map((row) => [row.link_id, row.day, JSON.stringify(parseCounts(row.counts!))]);
      const values = jsonRows(dialect, compacted, [
        ['link_id', 'text'],
        ['day', 'text'],
        ['counts', 'text'],
      ]);
      await sql`update visit_rollups set counts = v.counts from ${values} as v where visit_rollups.link_id = v.link_id and visit_rollups.day = v.day`.execute(
        tx,
      );
    }
    await afterStatement(dialect);
  }
}

/**
 * Adds the recorded visits to `links.visits`: one UPDATE … FROM per chunk of links. PostgreSQL first
 * locks the chunk's rows in id order: two flushes of different days (which no day row serialises)
 * must not take them in opposite orders.
 */
export async function addLinkVisits(tx: Tx, dialect: Dialect, perLink: Map<string, number>): Promise<void> {
  // Sorting ten thousand ids holds the event loop for milliseconds; only PostgreSQL's row locks need the order.
  const entries = dialect === 'postgres' ? [...perLink].sort(([a], [b]) => (a < b ? -1 : 1)) : [...perLink];
  const size = rowsPerStatement(dialect);
  for (let i = 0; i < entries.length; i += size) {
    const chunk = entries.slice(i, i + size);
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
    await afterStatement(dialect);
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
