import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dimension } from '../domain/analytics/ports.js';
import type { AnalyticsDB } from './analytics-schema.js';
import type { Dialect } from './database.js';
import { decodeBatch, decodeLegacy, type JournalBatch, type LegacyCount } from './journal.js';
import { jsonRows, type Column } from './json-rows.js';
import { dayName, dayNumber, SPAN_DIMENSIONS, SPAN_LENGTHS, SPANS_MARKER, SPANS_THROUGH, spanStart } from './rollup-spans.js';
import { utcDay } from '../domain/time.js';

/**
 * Journal rows folded per transaction: one per flush and bucket, so 120 is two minutes of flushes and a
 * roll-up at the default interval folds each bucket in one pass. A link's rows are upserted once per
 * pass, and its distinct values saturate within a pass (about 30 daily values and 40 span values under
 * varied traffic): with 20 journals per pass every busy link was upserted three times a minute, which
 * made the roll-up the largest cost of a busy instance (docs/benchmarks.md).
 */
const JOURNALS_PER_PASS = 120;
/** Rows per statement: small statements keep each synchronous SQLite call to a few milliseconds. */
const ROWS_PER_STATEMENT = 500;

/** better-sqlite3 runs each statement synchronously: yielding between them lets redirects be served. */
export const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Folds flushed journal batches into per-day, per-dimension rollups and the links' visit totals. Each
 * pass is one transaction that also deletes the journal rows it folded, so a count is folded exactly
 * once; the analytics_state row is locked first, so passes of several instances take turns.
 */
export async function rollUp(db: Kysely<AnalyticsDB>, dialect: Dialect, now: number): Promise<number> {
  // Read before the journal: every visit older than this was flushed by then, so this pass folds it.
  const covered = await durableUntil(db, now);
  let total = 0;
  await startSpansThrough(db, now);
  const buckets = await db.selectFrom('visit_journal').select('bucket').distinct().execute();
  for (const { bucket } of buckets) {
    for (;;) {
      const { visits, more } = await db.transaction().execute((tx) => pass(tx, dialect, Number(bucket)));
      total += visits;
      await breathe();
      if (!more) break;
    }
  }
  await foldFinishedDays(db, dialect, now);
  // Only ever rises: a slower roll-up of another instance must not make stats look older.
  await db
    .insertInto('analytics_state')
    .values({ name: 'rolled_up_at', value: covered })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: covered }).where('analytics_state.value', '<', covered))
    .execute();
  if (total > 0) {
    await db
      .insertInto('analytics_state')
      .values({ name: 'generation', value: 1 })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: sql<number>`analytics_state.value + 1` }))
      .execute();
  }
  return total;
}

async function pass(tx: Transaction<AnalyticsDB>, dialect: Dialect, bucket: number): Promise<{ visits: number; more: boolean }> {
  await lockRollUps(tx);
  const through = await spansThrough(tx);
  const journals = await tx.selectFrom('visit_journal').select(['id', 'entries', 'data']).where('bucket', '=', bucket).limit(JOURNALS_PER_PASS).execute();
  if (journals.length === 0) return { visits: 0, more: false };
  const sums = new RollupSums();
  for (const journal of journals) {
    if (journal.data) sums.addBatch(decodeBatch(journal.data));
    else sums.addCounts(decodeLegacy(journal.entries));
  }
  await upsertRollups(tx, dialect, sums.rows());
  await upsertSpans(tx, dialect, sums.spanRows(through));
  await addLinkVisits(tx, dialect, sums.perLink);
  await tx.deleteFrom('visit_journal').where('id', 'in', journals.map((j) => j.id)).execute();
  return { visits: sums.visits, more: journals.length === JOURNALS_PER_PASS };
}

/** Rollup key of a dimension value: one letter naming the dimension, a NUL, the value. */
const DIMENSION_OF: Record<string, Dimension> = { s: 'source', c: 'country', d: 'device', b: 'browser', r: 'referrer', x: 'bot' };
const key = (letter: string, value: string) => `${letter}\u0000${value}`;
const SOURCE_KEYS = [key('s', 's'), key('s', 'q')] as const;
const BOT_KEYS = { true: key('x', 'yes'), false: key('x', 'no') };

/**
 * Sums per link, UTC day and dimension value. Keys are built once per batch for each value its tables
 * name, never per visit: a visit costs six map increments.
 */
class RollupSums {
  readonly perLink = new Map<string, number>();
  visits = 0;
  private readonly byLink = new Map<string, Map<string, Map<string, number>>>();

  addBatch(b: JournalBatch): void {
    const countries = b.countries.map((c) => key('c', c));
    const referrers = b.referrers.map((r) => key('r', r));
    const devices = b.classes.map((c) => key('d', c.device));
    const browsers = b.classes.map((c) => key('b', c.browser));
    const bots = b.classes.map((c) => BOT_KEYS[`${c.bot}`]);
    const sums: (Map<string, number> | undefined)[] = [];
    const visitsOf = new Array<number>(b.links.length).fill(0);
    for (let i = 0; i < b.visits; i++) {
      const link = b.word(i, 0);
      const packed = b.word(i, 2);
      const visitor = packed >>> 16;
      const values = (sums[link] ??= this.values(b.links[link]!, b.day));
      add(values, SOURCE_KEYS[packed & 1]!, 1);
      add(values, countries[(packed >>> 1) & 0x7fff]!, 1);
      add(values, devices[visitor]!, 1);
      add(values, browsers[visitor]!, 1);
      add(values, bots[visitor]!, 1);
      add(values, referrers[b.word(i, 1)]!, 1);
      visitsOf[link]!++;
    }
    for (const [i, n] of visitsOf.entries()) add(this.perLink, b.links[i]!, n);
    this.visits += b.visits;
  }

  addCounts(counts: LegacyCount[]): void {
    for (const c of counts) {
      const values = this.values(c.linkId, c.day);
      const keys = [key('s', c.source), key('c', c.country), key('d', c.device), key('b', c.browser), key('r', c.referrer), BOT_KEYS[`${c.bot}`]];
      for (const k of keys) add(values, k, c.count);
      add(this.perLink, c.linkId, c.count);
      this.visits += c.count;
    }
  }

  rows(): RollupInput[] {
    const rows: RollupInput[] = [];
    for (const [link, days] of this.byLink) {
      for (const [day, values] of days) {
        for (const [k, count] of values) rows.push([link, DIMENSION_OF[k[0]!]!, k.slice(2), day, count]);
      }
    }
    return rows;
  }

  /**
   * The same counts summed per span (rollup-spans.ts): each daily count of a day up to `through`
   * (undefined: any day) also goes to its 7- and 28-day span; later days are folded when they are over.
   */
  spanRows(through: number | undefined): SpanInput[] {
    const starts = new Map<string, string[]>();
    const rows: SpanInput[] = [];
    for (const [link, days] of this.byLink) {
      const spans = new Map<string, Map<string, number>>();
      for (const [day, values] of days) {
        if (through !== undefined && dayNumber(day) > through) continue;
        let first = starts.get(day);
        if (!first) starts.set(day, (first = SPAN_LENGTHS.map((span) => spanStart(day, span))));
        for (const [i, span] of SPAN_LENGTHS.entries()) {
          const at = `${span}|${first[i]}`;
          let sums = spans.get(at);
          if (!sums) spans.set(at, (sums = new Map()));
          for (const [k, count] of values) if (SPAN_KEYS.has(k[0]!)) add(sums, k, count);
        }
      }
      for (const [at, sums] of spans) {
        const [span, start] = at.split('|') as [string, string];
        for (const [k, count] of sums) rows.push([link, DIMENSION_OF[k[0]!]!, Number(span), start, k.slice(2), count]);
      }
    }
    return rows;
  }

  private values(link: string, day: string): Map<string, number> {
    let days = this.byLink.get(link);
    if (!days) this.byLink.set(link, (days = new Map()));
    let values = days.get(day);
    if (!values) days.set(day, (values = new Map()));
    return values;
  }
}

const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);

type RollupInput = [linkId: string, dimension: Dimension, value: string, day: string, count: number];
type SpanInput = [linkId: string, dimension: Dimension, span: number, startDay: string, value: string, count: number];
/** Key letters of SPAN_DIMENSIONS. */
const SPAN_KEYS = new Set(Object.entries(DIMENSION_OF).flatMap(([letter, dimension]) => (SPAN_DIMENSIONS.includes(dimension) ? [letter] : [])));

const ROLLUP_KEY: Column[] = [['link_id', 'text'], ['dimension', 'text'], ['value', 'text'], ['day', 'text']];
const SPAN_KEY: Column[] = [['link_id', 'text'], ['dimension', 'text'], ['span', 'bigint'], ['start_day', 'text'], ['value', 'text']];
const upsertRollups = (tx: Transaction<AnalyticsDB>, dialect: Dialect, rows: RollupInput[]) => addCounts(tx, dialect, 'visit_rollups', ROLLUP_KEY, rows);
const upsertSpans = (tx: Transaction<AnalyticsDB>, dialect: Dialect, rows: SpanInput[]) => addCounts(tx, dialect, 'visit_rollup_spans', SPAN_KEY, rows);

/**
 * Adds counts to a table of sums (rows: the key columns, then the count). Rows go to the database as
 * one JSON parameter per statement: no statement building per row.
 */
async function addCounts(tx: Transaction<AnalyticsDB>, dialect: Dialect, table: string, key: Column[], rows: unknown[][]): Promise<void> {
  const keyNames = sql.join(key.map(([name]) => sql.ref(name)));
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const values = jsonRows(dialect, rows.slice(i, i + ROWS_PER_STATEMENT), [...key, ['count', 'bigint']]);
    // "where true": SQLite cannot otherwise tell an upsert's ON CONFLICT from a join's ON.
    await sql`insert into ${sql.table(table)} (${keyNames}, count) select * from ${values} as v where true
      on conflict (${keyNames}) do update set count = ${sql.ref(`${table}.count`)} + excluded.count`.execute(tx);
    await breathe();
  }
}

/** One UPDATE … FROM per chunk of links (both databases support it) instead of one statement per link. */
async function addLinkVisits(tx: Transaction<AnalyticsDB>, dialect: Dialect, perLink: Map<string, number>): Promise<void> {
  const entries = [...perLink];
  for (let i = 0; i < entries.length; i += ROWS_PER_STATEMENT) {
    const values = jsonRows(dialect, entries.slice(i, i + ROWS_PER_STATEMENT), [
      ['id', 'text'],
      ['n', 'bigint'],
    ]);
    await sql`update links set visits = links.visits + v.n from ${values} as v where links.id = v.id`.execute(tx);
    await breathe();
  }
}

/** Locking the state row first makes concurrent passes and folds of several instances take turns. */
async function lockRollUps(tx: Transaction<AnalyticsDB>): Promise<void> {
  await tx.insertInto('analytics_state').values({ name: 'roll_up_lock', value: 0 }).onConflict((oc) => oc.column('name').doUpdateSet({ value: 0 })).execute();
}

async function spansThrough(db: Kysely<AnalyticsDB> | Transaction<AnalyticsDB>): Promise<number | undefined> {
  const row = await db.selectFrom('analytics_state').select('value').where('name', '=', SPANS_THROUGH).executeTakeFirst();
  return row === undefined ? undefined : Number(row.value);
}

/**
 * The first roll-up of this version: until now every pass wrote spans for every day, so they hold every
 * day up to today; from here on, days after SPANS_THROUGH wait for foldFinishedDays. A database where no
 * roll-up ever counted a visit (no generation row) has empty spans: they start at yesterday, and today
 * is already read from daily rows. Only once the spans are complete (SPANS_MARKER): before, they are
 * not read, and passes keep writing every day.
 */
async function startSpansThrough(db: Kysely<AnalyticsDB>, now: number): Promise<void> {
  if ((await spansThrough(db)) !== undefined) return;
  await db.transaction().execute(async (tx) => {
    await lockRollUps(tx);
    const rows = await tx.selectFrom('analytics_state').select('name').where('name', 'in', [SPANS_MARKER, SPANS_THROUGH, 'generation']).execute();
    const has = (name: string) => rows.some((r) => r.name === name);
    if (!has(SPANS_MARKER) || has(SPANS_THROUGH)) return;
    await tx.insertInto('analytics_state').values({ name: SPANS_THROUGH, value: dayNumber(utcDay(now)) - (has('generation') ? 0 : 1) }).execute();
  });
}

/** Links whose rows of a day are folded per statement pair. */
const LINKS_PER_FOLD_STEP = 500;

/**
 * Adds each finished day after SPANS_THROUGH to the spans, a day per transaction that also moves
 * SPANS_THROUGH, so readers see the day either in the spans or in daily rows, never in both. The day's
 * rows are found link by link (the key starts with the link), a page of links at a time.
 */
async function foldFinishedDays(db: Kysely<AnalyticsDB>, dialect: Dialect, now: number): Promise<void> {
  const today = dayNumber(utcDay(now));
  for (;;) {
    const through = await spansThrough(db);
    if (through === undefined || through + 1 >= today) return;
    await db.transaction().execute(async (tx) => {
      await lockRollUps(tx);
      // Another instance may have folded it meanwhile.
      if ((await spansThrough(tx)) !== through) return;
      const day = dayName(through + 1);
      const starts = SPAN_LENGTHS.map((span) => [span, spanStart(day, span)] as const);
      for (let after = ''; ; ) {
        const page = await tx.selectFrom('links').select('id').where('id', '>', after).orderBy('id').limit(LINKS_PER_FOLD_STEP).execute();
        if (page.length === 0) break;
        after = page.at(-1)!.id;
        const daily = await tx
          .selectFrom('visit_rollups')
          .select(['link_id', 'dimension', 'value', 'count'])
          .where('link_id', 'in', page.map((l) => l.id))
          .where('day', '=', day)
          .where('dimension', 'in', [...SPAN_DIMENSIONS])
          .execute();
        const rows: SpanInput[] = daily.flatMap((r) =>
          starts.map(([span, start]): SpanInput => [r.link_id, r.dimension as Dimension, span, start, r.value, Number(r.count)]),
        );
        await upsertSpans(tx, dialect, rows);
        await breathe();
      }
      await tx.updateTable('analytics_state').set({ value: through + 1 }).where('name', '=', SPANS_THROUGH).execute();
    });
  }
}

/**
 * The time up to which every running instance has made its visits durable (its last flush or idle
 * heartbeat): the honest "refreshed at" of what a roll-up folds. An instance that died holds it back
 * until it is reaped, which is right: its unflushed visits are not in the stats (they become a gap).
 */
async function durableUntil(db: Kysely<AnalyticsDB>, now: number): Promise<number> {
  const row = await db.selectFrom('recorder_instances').select((eb) => eb.fn.min<number>('flushed_to').as('covered')).executeTakeFirst();
  const covered = row?.covered === null || row?.covered === undefined ? now : Number(row.covered);
  return Math.min(covered, now);
}
