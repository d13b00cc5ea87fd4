import crypto from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Dialect } from '../../platform/database/database.js';
import { jsonRows, type Column } from '../../platform/database/json-rows.js';
import { eachRow } from '../../platform/database/sqlite-driver.js';
import { DIMENSIONS, type Counts, type Dimension, type Recorded, type RollupRow, type StoredCounts } from '../ports.js';
import { breathe } from '../visits.js';
import type { AnalyticsDB } from './analytics-schema.js';

type Tx = Transaction<AnalyticsDB>;

/** A rollup row replaces the writer's row of its link and day whole (writeRollups). */
const ROLLUP_REPLACES = 'on conflict (link_id, day, writer) do update set s = excluded.s, q = excluded.q, counts = excluded.counts';
const SQLITE_UPSERT_ROLLUP = `insert into visit_rollups (link_id, day, writer, s, q, counts) values (?, ?, ?, ?, ?, ?) ${ROLLUP_REPLACES}`;
const SQLITE_ADD_LINK_VISITS = 'update links set visits = visits + ? where id = ?';

/**
 * Writes rows a statement's worth at a time. SQLite's run on the event loop (64 rows: about half a
 * millisecond, after which redirects are let through); PostgreSQL's run elsewhere, and under load every
 * round trip waits for a turn of the event loop, so fewer, larger statements shorten its flushes (ADR 0057).
 */
async function inChunks<T>(dialect: Dialect, rows: T[], write: (chunk: T[]) => Promise<unknown>): Promise<void> {
  const size = dialect === 'sqlite' ? 64 : 1000;
  for (let i = 0; i < rows.length; i += size) {
    await write(rows.slice(i, i + size));
    if (dialect === 'sqlite') await breathe();
  }
}

/** Adds the stored counts of rows (of the dimensions named, or all) to `into`. */
export function addCounts(into: Counts, rows: readonly StoredCounts[], dimensions: readonly Dimension[] = DIMENSIONS): Counts {
  for (const row of rows) {
    for (const dimension of dimensions) {
      const pairs = row[dimension];
      if (pairs === undefined) continue;
      const target = (into[dimension] ??= new Map<string, number>());
      for (let i = 0; i < pairs.length; i += 2) target.set(pairs[i] as string, (target.get(pairs[i] as string) ?? 0) + (pairs[i + 1] as number));
    }
  }
  return into;
}

/** A day's counts as stored: one JSON object per writer's row, joined by commas. */
export function parseCounts(text: string): StoredCounts[] {
  return JSON.parse(`[${text}]`) as StoredCounts[];
}

/** Rows of the counts (CSV, window totals): values with a positive count only. */
export function countRows(day: string, counts: Counts): RollupRow[] {
  const rows: RollupRow[] = [];
  for (const dimension of Object.keys(counts) as Dimension[]) {
    for (const [value, count] of counts[dimension]!) if (count > 0) rows.push({ day, dimension, value, count });
  }
  return rows;
}

const ROLLUP_COLUMNS: Column[] = [
  ['link_id', 'text'],
  ['day', 'text'],
  ['writer', 'text'],
  ['s', 'bigint'],
  ['q', 'bigint'],
  ['counts', 'text'],
];

/** Counts a writer holds in memory before a new one takes over (a new id, nothing remembered): 16 bytes each. */
export const WRITER_MAX_VALUES = 1_000_000;

/**
 * One link-day's totals: `used` entries of value ids and counts. A typed array keeps a day of counts
 * outside the collected heap: kept as objects, they doubled the redirects' p99 (ADR 0057).
 */
interface Totals {
  s: number;
  q: number;
  pairs: Float64Array;
  used: number;
}

/**
 * The rollup rows one recorder writes: one per link and day under its own writer id, each replaced
 * whole with the running totals it keeps in memory, so a flush never reads a row and never waits for
 * another instance's (ADR 0057). The store lets a writer go, and starts new rows under a new one, when a
 * flush fails (its totals may hold uncommitted visits) and when `retired` says so.
 */
export class RollupWriter {
  readonly id = crypto.randomUUID();
  /** Totals per day and link. */
  private readonly days = new Map<string, Map<string, Totals>>();
  /** Counts held across all totals. */
  private values = 0;
  /** Ids of the values seen, per dimension; for each id, its dimension's index and its value as JSON. */
  private readonly ids = DIMENSIONS.map(() => new Map<string, number>());
  private readonly dimensionOf: number[] = [];
  private readonly quotedOf: string[] = [];

  constructor(private readonly maxValues = WRITER_MAX_VALUES) {}

  /**
   * Whether the next flush needs a new writer: past `maxValues` counts, or holding a day before
   * `yesterday`, which takes visits only after an outage (so about once a day, just after midnight).
   */
  retired(yesterday: string): boolean {
    return this.values > this.maxValues || [...this.days.keys()].some((day) => day < yesterday);
  }

  /** Adds a recorded link-day to its totals and returns its row: [link, day, writer, s, q, counts]. */
  add(r: Recorded): unknown[] {
    let links = this.days.get(r.day);
    if (links === undefined) this.days.set(r.day, (links = new Map<string, Totals>()));
    let totals = links.get(r.linkId);
    if (totals === undefined) links.set(r.linkId, (totals = { s: 0, q: 0, pairs: new Float64Array(64), used: 0 }));
    this.apply(totals, r, 1);
    return [r.linkId, r.day, this.id, totals.s, totals.q, this.json(totals)];
  }

  /**
   * Takes back what `add` added for a link-day whose row a savepoint rolled back, dropping values left
   * at zero, so the totals are again what the committed row holds.
   */
  remove(r: Recorded): void {
    const links = this.days.get(r.day);
    const totals = links?.get(r.linkId);
    if (links === undefined || totals === undefined) return;
    this.apply(totals, r, -1);
    const { pairs } = totals;
    let kept = 0;
    for (let i = 0; i < totals.used; i += 2) {
      if (pairs[i + 1] === 0) continue;
      pairs[kept] = pairs[i]!;
      pairs[kept + 1] = pairs[i + 1]!;
      kept += 2;
    }
    this.values -= (totals.used - kept) / 2;
    totals.used = kept;
    if (kept === 0 && totals.s === 0 && totals.q === 0) links.delete(r.linkId);
    if (links.size === 0) this.days.delete(r.day);
  }

  /** Adds (sign 1) or takes back (sign -1) a link-day's visits to or from its totals. */
  private apply(totals: Totals, r: Recorded, sign: 1 | -1): void {
    const { s, q, counts } = r.rollup();
    totals.s += sign * s;
    totals.q += sign * q;
    for (let d = 0; d < DIMENSIONS.length; d++) counts[DIMENSIONS[d]!].forEach((n, value) => this.bump(totals, this.idOf(d, value), sign * n));
  }

  private idOf(dimension: number, value: string): number {
    let id = this.ids[dimension]!.get(value);
    if (id === undefined) {
      id = this.dimensionOf.length;
      this.ids[dimension]!.set(value, id);
      this.dimensionOf.push(dimension);
      this.quotedOf.push(JSON.stringify(value));
    }
    return id;
  }

  /** Adds n to the count of value `id` (a link-day has tens of values: a scan finds it). */
  private bump(totals: Totals, id: number, n: number): void {
    const { pairs, used } = totals;
    for (let i = 0; i < used; i += 2) {
      if (pairs[i] === id) {
        pairs[i + 1]! += n;
        return;
      }
    }
    if (used === pairs.length) {
      totals.pairs = new Float64Array(2 * used);
      totals.pairs.set(pairs);
    }
    totals.pairs[used] = id;
    totals.pairs[used + 1] = n;
    totals.used = used + 2;
    this.values++;
  }

  /** The row's counts as JSON (StoredCounts): per dimension in DIMENSIONS' order, its values and counts in turn. */
  private json(totals: Totals): string {
    const { pairs, used } = totals;
    let json = '{';
    for (let d = 0; d < DIMENSIONS.length; d++) {
      let first = true;
      for (let i = 0; i < used; i += 2) {
        const id = pairs[i]!;
        if (this.dimensionOf[id] !== d) continue;
        json += first ? `${json === '{' ? '' : '],'}"${DIMENSIONS[d]}":[` : ',';
        json += `${this.quotedOf[id]},${pairs[i + 1]}`;
        first = false;
      }
    }
    return json === '{' ? '{}' : `${json}]}`;
  }
}

/** Writes the writer's totals of the recorded link-days to its rows (SQLite: a prepared statement per row; PostgreSQL: JSON rows). */
export function writeRollups(tx: Tx, dialect: Dialect, writer: RollupWriter, recorded: Recorded[]): Promise<void> {
  return inChunks(dialect, recorded, async (chunk) => {
    const rows = chunk.map((r) => writer.add(r));
    if (dialect === 'sqlite') return tx.executeQuery(eachRow(SQLITE_UPSERT_ROLLUP, rows));
    await sql`insert into visit_rollups (link_id, day, writer, s, q, counts)
      select link_id, day, writer, s, q, counts from ${jsonRows(dialect, rows, ROLLUP_COLUMNS)} as v ${sql.raw(ROLLUP_REPLACES)}`.execute(tx);
  });
}

const LINK_VISITS: Column[] = [
  ['link_id', 'text'],
  ['n', 'bigint'],
];

/**
 * Adds the recorded visits to `links.visits`. PostgreSQL first locks the rows in id order, sorted by
 * the database: flushes of two days, which no day row serialises, must not deadlock.
 */
export async function addLinkVisits(tx: Tx, dialect: Dialect, perLink: Map<string, number>): Promise<void> {
  const entries = [...perLink];
  if (dialect === 'postgres' && entries.length > 0) {
    await sql`select id from links where id in (select link_id from ${jsonRows(dialect, entries, LINK_VISITS)} as v) order by id for update`.execute(tx);
  }
  await inChunks(dialect, entries, async (chunk) => {
    if (dialect === 'sqlite')
      return tx.executeQuery(
        eachRow(
          SQLITE_ADD_LINK_VISITS,
          chunk.map(([id, n]) => [n, id]),
        ),
      );
    await sql`update links set visits = links.visits + v.n from ${jsonRows(dialect, chunk, LINK_VISITS)} as v where links.id = v.link_id`.execute(tx);
  });
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
