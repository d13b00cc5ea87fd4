import type { Dimension, RollupRow } from '../ports.js';
import type { VisitRollupTable } from './analytics-schema.js';
import type { VisitRollupSpanTable } from './rollup-spans.js';

/**
 * The counts of one link over one day (a `visit_rollups` row) or one span (a `visit_rollup_spans`
 * row): dimension, then value, then visits. Stored as a JSON text in one row per link and day (or
 * span), not as a row per value (migration 0008): a roll-up then writes one row per busy link and day
 * instead of about 30, and a stats read fetches one row per day or span instead of one per value
 * (docs/decisions.md, "Rollup rows").
 */
export type Counts = Partial<Record<Dimension, Record<string, number>>>;

/**
 * A map of values to visits. Values are names from requests (a referrer host may be `constructor` or
 * `__proto__`), so every such map has no prototype: on a plain object those names would read
 * Object.prototype's members and `__proto__` would not store at all.
 */
export const valueMap = (): Record<string, number> => Object.create(null) as Record<string, number>;

/** Counts from their JSON, with value maps that have no prototype (valueMap). */
export function parseCounts(text: string): Counts {
  const counts = JSON.parse(text) as Counts;
  // JSON.parse makes own properties, so `__proto__` is kept; copying it into a map without a
  // prototype keeps it an ordinary key.
  for (const dimension of Object.keys(counts) as Dimension[]) counts[dimension] = Object.assign(valueMap(), counts[dimension]);
  return counts;
}

/** Adds `sign` times the counts of `from` (of the dimensions named, or all) to `into`. */
export function addCounts(into: Counts, from: Counts, sign: 1 | -1 = 1, dimensions?: readonly string[]): Counts {
  for (const dimension of Object.keys(from) as Dimension[]) {
    if (dimensions !== undefined && !dimensions.includes(dimension)) continue;
    const source = from[dimension]!;
    const target = (into[dimension] ??= valueMap());
    for (const value of Object.keys(source)) target[value] = (target[value] ?? 0) + sign * source[value]!;
  }
  return into;
}

/** Rows of the counts (for CSV and totals): values with a positive count only. */
export function countRows(day: string, counts: Counts): RollupRow[] {
  const rows: RollupRow[] = [];
  for (const dimension of Object.keys(counts) as Dimension[]) {
    const values = counts[dimension]!;
    for (const value of Object.keys(values)) if (values[value]! > 0) rows.push({ day, dimension, value, count: values[value]! });
  }
  return rows;
}

/** A count of one value, as rollups were kept before migration 0008 (and as tests write them). */
export interface ValueRow {
  link_id: string;
  dimension: string;
  value: string;
  count: number;
}

/** The rollup rows (one per link and day) of counts given one per value. */
export function packDays(rows: (ValueRow & { day: string })[]): VisitRollupTable[] {
  return pack(rows, (r): [string, string] => [r.link_id, r.day], ([link_id, day], counts) => {
    const [s, q] = sourceVisits(counts);
    return { link_id, day, s, q, counts: JSON.stringify(counts) };
  });
}

/** The span rows (one per link and span) of counts given one per value. */
export function packSpans(rows: (ValueRow & { span: number; start_day: string })[]): VisitRollupSpanTable[] {
  return pack(rows, (r): [string, number, string] => [r.link_id, r.span, r.start_day], ([link_id, span, start_day], counts) => ({ link_id, span, start_day, counts: JSON.stringify(counts) }));
}

function pack<R extends ValueRow, K extends unknown[], T>(rows: R[], keyOf: (r: R) => K, make: (key: K, counts: Counts) => T): T[] {
  const groups = new Map<string, { key: K; counts: Counts }>();
  for (const r of rows) {
    const key = keyOf(r);
    const name = JSON.stringify(key);
    let group = groups.get(name);
    if (!group) groups.set(name, (group = { key, counts: {} }));
    const values = (group.counts[r.dimension as Dimension] ??= valueMap());
    values[r.value] = (values[r.value] ?? 0) + r.count;
  }
  return [...groups.values()].map((g) => make(g.key, g.counts));
}

/** Visits through /s/ and /q/: the columns the daily series reads without parsing the counts. */
export const sourceVisits = (counts: Counts): [s: number, q: number] => [counts.source?.s ?? 0, counts.source?.q ?? 0];
