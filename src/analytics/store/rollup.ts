import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { wordClass, wordCountry, wordSource } from '../day-visits.js';
import { DIMENSIONS, type Dimension } from '../ports.js';
import type { AnalyticsDB } from './analytics-schema.js';
import type { Dialect } from '../../platform/database/database.js';
import { decodeBatch, decodeLegacy, type JournalBatch, type LegacyCount } from './journal.js';
import { jsonRows, type Column } from '../../platform/database/json-rows.js';
import { linkIds } from './link-numbers.js';
import { addCounts, parseCounts, sourceVisits, valueMap, type Counts } from './rollup-counts.js';
import { dayName, dayNumber, SPAN_DIMENSIONS, SPAN_LENGTHS, SPANS_MARKER, SPANS_THROUGH, spanStart } from './rollup-spans.js';
import { utcDay } from '../../platform/time.js';
import { pace } from '../../platform/database/pace.js';

/**
 * Journal rows folded per transaction: one per flush and bucket, so 120 is two minutes of flushes and a
 * roll-up at the default interval folds each bucket in one pass. A link's row of a day is rewritten
 * once per pass: with 20 journals per pass every busy link was written three times a minute
 * (docs/benchmarks.md).
 */
const JOURNALS_PER_PASS = 120;
/** Rows per statement pair: small statements keep each synchronous SQLite call to a few milliseconds. */
const ROWS_PER_STATEMENT = 500;

/**
 * Folds flushed journal batches into the rollups (a row per link and day, and per link and span) and
 * per-link visit deltas, which the roll-up adds to the links' visit totals at its end. Each pass is one
 * transaction that also deletes the journal rows it folded, so a count is folded exactly once; the
 * analytics_state row is locked first, so passes of several instances take turns.
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
      await pace();
      if (!more) break;
    }
  }
  await applyVisitDeltas(db, dialect);
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
  const batches = journals.map((journal) => (journal.data ? decodeBatch(journal.data) : journal.entries));
  // The pass's link numbers, looked up at once (a bucket's few hundred links, in every batch of the pass).
  const ids = await linkIds(tx, batches.flatMap((b) => (typeof b !== 'string' && 'nums' in b.links ? b.links.nums : [])));
  for (const batch of batches) {
    if (typeof batch === 'string') sums.addCounts(decodeLegacy(batch));
    else sums.addBatch(batch, 'ids' in batch.links ? batch.links.ids : batch.links.nums.map((num) => ids.get(num)!));
    // A bucket's two minutes of a busy instance is tens of thousands of visits: summed in slices.
    await pace();
  }
  const days = sums.days();
  await addToRows(tx, dialect, DAYS, days);
  await addToRows(tx, dialect, SPANS, sums.spans(through, days));
  await addVisitDeltas(tx, dialect, sums.perLink);
  await tx.deleteFrom('visit_journal').where('id', 'in', journals.map((j) => j.id)).execute();
  return { visits: sums.visits, more: journals.length === JOURNALS_PER_PASS };
}

/** A Tally's arrays follow DIMENSIONS (ports.ts). */
const at = (dimension: Dimension): number => DIMENSIONS.indexOf(dimension);
const [SOURCE, COUNTRY, DEVICE, BROWSER, REFERRER, BOT] = [at('source'), at('country'), at('device'), at('browser'), at('referrer'), at('bot')];

/** Visits of one link and day per value id (ids of RollupSums.ids), one array per dimension. */
type Tally = number[][];

/**
 * Sums per link and UTC day. A pass numbers every value it meets once per batch (ids per dimension,
 * from the batch's tables), so a visit costs six increments of small arrays; names are put back once
 * per link, day and value when the rows are written (days()).
 */
class RollupSums {
  readonly perLink = new Map<string, number>();
  visits = 0;
  /** Per dimension: value name to id, and the names by id. */
  private readonly ids = DIMENSIONS.map(() => ({ of: new Map<string, number>(), names: [] as string[] }));
  /** Link, then day, then its tally. */
  private readonly byLink = new Map<string, Map<string, Tally>>();

  /** A batch whose links are `links` (its ids, or its numbers' ids: linkIds in link-numbers.ts). */
  addBatch(b: JournalBatch, links: string[]): void {
    const countries = b.countries.map((c) => this.id(COUNTRY, c));
    const referrers = b.referrers.map((r) => this.id(REFERRER, r));
    const devices = b.classes.map((c) => this.id(DEVICE, c.device));
    const browsers = b.classes.map((c) => this.id(BROWSER, c.browser));
    const bots = b.classes.map((c) => this.id(BOT, c.bot ? 'yes' : 'no'));
    const sources = [this.id(SOURCE, 's'), this.id(SOURCE, 'q')];
    const tallies: (Tally | undefined)[] = [];
    const visitsOf = new Array<number>(links.length).fill(0);
    const words = b.words;
    for (let w = 0; w < words.length; w += 3) {
      const link = words[w]!;
      const packed = words[w + 2]!;
      const visitor = wordClass(packed);
      const t = (tallies[link] ??= this.tally(links[link]!, b.day));
      bump(t[SOURCE]!, sources[wordSource(packed)]!, 1);
      bump(t[COUNTRY]!, countries[wordCountry(packed)]!, 1);
      bump(t[DEVICE]!, devices[visitor]!, 1);
      bump(t[BROWSER]!, browsers[visitor]!, 1);
      bump(t[BOT]!, bots[visitor]!, 1);
      bump(t[REFERRER]!, referrers[words[w + 1]!]!, 1);
      visitsOf[link]!++;
    }
    for (const [i, n] of visitsOf.entries()) add(this.perLink, links[i]!, n);
    this.visits += b.visits;
  }

  addCounts(counts: LegacyCount[]): void {
    for (const c of counts) {
      const t = this.tally(c.linkId, c.day);
      const values = [c.source, c.country, c.device, c.browser, c.referrer, c.bot ? 'yes' : 'no'];
      for (const [d, value] of values.entries()) bump(t[d]!, this.id(d, value), c.count);
      add(this.perLink, c.linkId, c.count);
      this.visits += c.count;
    }
  }

  /** The daily rows to add: link, day, counts. */
  days(): Entry[] {
    const entries: Entry[] = [];
    for (const [link, days] of this.byLink) for (const [day, tally] of days) entries.push({ key: [link, day], counts: this.counts(tally) });
    return entries;
  }

  /**
   * The same counts summed per span (rollup-spans.ts): each daily count of a day up to `through`
   * (undefined: any day) also goes to its 7- and 28-day span; later days are folded when they are over.
   */
  spans(through: number | undefined, days: Entry[]): Entry[] {
    const spans = new SpanSums();
    for (const { key, counts } of days) {
      const [link, day] = key as [string, string];
      if (through === undefined || dayNumber(day) <= through) spans.add(link, day, counts);
    }
    return spans.entries();
  }

  private id(dimension: number, name: string): number {
    const ids = this.ids[dimension]!;
    let id = ids.of.get(name);
    if (id === undefined) ids.of.set(name, (id = ids.names.push(name) - 1));
    return id;
  }

  private tally(link: string, day: string): Tally {
    let days = this.byLink.get(link);
    if (!days) this.byLink.set(link, (days = new Map()));
    let tally = days.get(day);
    if (!tally) days.set(day, (tally = DIMENSIONS.map(() => [])));
    return tally;
  }

  private counts(tally: Tally): Counts {
    const counts: Counts = {};
    for (const [d, dimension] of DIMENSIONS.entries()) {
      const t = tally[d]!;
      if (t.length === 0) continue;
      const values = valueMap();
      const names = this.ids[d]!.names;
      for (let id = 0; id < t.length; id++) if (t[id]) values[names[id]!] = t[id]!;
      counts[dimension] = values;
    }
    return counts;
  }
}

/** Daily counts summed into the 7- and 28-day spans of their days (SPAN_DIMENSIONS only). */
class SpanSums {
  private readonly sums = new Map<string, Entry>();
  private readonly starts = new Map<string, string[]>();

  add(link: string, day: string, counts: Counts): void {
    let first = this.starts.get(day);
    if (!first) this.starts.set(day, (first = SPAN_LENGTHS.map((span) => spanStart(day, span))));
    for (const [i, span] of SPAN_LENGTHS.entries()) {
      const at = `${link}|${span}|${first[i]}`;
      let entry = this.sums.get(at);
      if (!entry) this.sums.set(at, (entry = { key: [link, span, first[i]!], counts: {} }));
      addCounts(entry.counts, counts, 1, SPAN_DIMENSIONS);
    }
  }

  entries(): Entry[] {
    return [...this.sums.values()];
  }
}

const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
/** Adds n to a tally's count of a value id (an array with holes where no visit had that value). */
const bump = (counts: number[], id: number, n: number) => {
  counts[id] = (counts[id] ?? 0) + n;
};

/** A row to add to: its key (link first), and the counts to add. */
interface Entry {
  key: [linkId: string, ...rest: (string | number)[]];
  counts: Counts;
}

interface CountTable {
  name: 'visit_rollups' | 'visit_rollup_spans';
  /** Key columns, link_id first. */
  key: Column[];
  /** Columns kept beside the counts, from them. */
  extra: Column[];
  extraOf: (counts: Counts) => number[];
}

const DAYS: CountTable = { name: 'visit_rollups', key: [['link_id', 'text'], ['day', 'text']], extra: [['s', 'bigint'], ['q', 'bigint']], extraOf: sourceVisits };
const SPANS: CountTable = { name: 'visit_rollup_spans', key: [['link_id', 'text'], ['span', 'bigint'], ['start_day', 'text']], extra: [], extraOf: () => [] };

/**
 * Adds counts to rows of a table of counts, a chunk of rows per statement pair: the rows there are
 * read, the sums made here, and the rows written back whole. Only roll-up passes and folds write these
 * tables, and each holds the roll-up lock (lockRollUps) for its transaction, so nothing changes a row
 * between the read and the write. Rows go to the database as one JSON parameter per statement.
 */
async function addToRows(tx: Transaction<AnalyticsDB>, dialect: Dialect, table: CountTable, entries: Entry[]): Promise<void> {
  const columns: Column[] = [...table.key, ...table.extra, ['counts', 'text']];
  const names = sql.join(columns.map(([name]) => sql.ref(name)));
  const keyNames = sql.join(table.key.map(([name]) => sql.ref(name)));
  const updates = sql.join([...table.extra, ['counts']].map(([name]) => sql`${sql.ref(name!)} = excluded.${sql.ref(name!)}`));
  const keyOf = (values: unknown[]) => values.map(String).join('|');
  for (let i = 0; i < entries.length; i += ROWS_PER_STATEMENT) {
    const chunk = entries.slice(i, i + ROWS_PER_STATEMENT);
    // Each key column narrowed to the chunk's values: the rows of every combination of them (for
    // spans, the chunk's links × span lengths × starts), a superset that the key lookup below sorts out.
    const where = sql.join(
      table.key.map(([name], c) => sql`${sql.ref(name)} in (${sql.join([...new Set(chunk.map((e) => e.key[c]!))])})`),
      sql` and `,
    );
    const { rows: found } = await sql<Record<string, unknown>>`select ${keyNames}, counts from ${sql.table(table.name)} where ${where}`.execute(tx);
    const stored = new Map(found.map((r) => [keyOf(table.key.map(([name]) => r[name])), r.counts as string]));
    const rows = chunk.map((e) => {
      const before = stored.get(keyOf(e.key));
      const counts = before === undefined ? e.counts : addCounts(parseCounts(before), e.counts);
      return [...e.key, ...table.extraOf(counts), JSON.stringify(counts)];
    });
    // "where true": SQLite cannot otherwise tell an upsert's ON CONFLICT from a join's ON.
    await sql`insert into ${sql.table(table.name)} (${names}) select * from ${jsonRows(dialect, rows, columns)} as v where true
      on conflict (${keyNames}) do update set ${updates}`.execute(tx);
    await pace();
  }
}

/**
 * A pass's visits per link, kept for applyVisitDeltas. Appended rows: a few pages per pass, where
 * updating `links` there touched a page for nearly every link of the pass.
 */
async function addVisitDeltas(tx: Transaction<AnalyticsDB>, dialect: Dialect, perLink: Map<string, number>): Promise<void> {
  await perLinkStatements(tx, dialect, perLink, (values) => sql`insert into link_visit_deltas (link_id, n) select * from ${values} as v`);
}

/**
 * Adds the passes' visits to `links.visits`, once per link and roll-up, in one transaction that also
 * empties the deltas (under the roll-up lock, so no pass adds any meanwhile). Deltas that a stopped
 * roll-up left are applied by the next one, of any instance: a link's `visits` lags its rollups by at
 * most that, and nothing is counted twice or lost.
 */
async function applyVisitDeltas(db: Kysely<AnalyticsDB>, dialect: Dialect): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await lockRollUps(tx);
    const deltas = await tx.selectFrom('link_visit_deltas').select(['link_id', sql<number>`sum(n)`.as('n')]).groupBy('link_id').execute();
    if (deltas.length === 0) return;
    await addLinkVisits(tx, dialect, new Map(deltas.map((d) => [d.link_id, Number(d.n)])));
    await tx.deleteFrom('link_visit_deltas').execute();
  });
}

/** One UPDATE … FROM per chunk of links (both databases support it) instead of one statement per link. */
async function addLinkVisits(tx: Transaction<AnalyticsDB>, dialect: Dialect, perLink: Map<string, number>): Promise<void> {
  await perLinkStatements(tx, dialect, perLink, (values) => sql`update links set visits = links.visits + v.n from ${values} as v where links.id = v.link_id`);
}

/** One statement per chunk of a per-link count, given as rows (link_id, n) of one JSON parameter. */
async function perLinkStatements(
  tx: Transaction<AnalyticsDB>,
  dialect: Dialect,
  perLink: Map<string, number>,
  statement: (values: RawBuilder<unknown>) => RawBuilder<unknown>,
): Promise<void> {
  const entries = [...perLink];
  for (let i = 0; i < entries.length; i += ROWS_PER_STATEMENT) {
    const values = jsonRows(dialect, entries.slice(i, i + ROWS_PER_STATEMENT), [
      ['link_id', 'text'],
      ['n', 'bigint'],
    ]);
    await statement(values).execute(tx);
    await pace();
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
      for (let after = ''; ; ) {
        const page = await tx.selectFrom('links').select('id').where('id', '>', after).orderBy('id').limit(LINKS_PER_FOLD_STEP).execute();
        if (page.length === 0) break;
        after = page.at(-1)!.id;
        const daily = await tx
          .selectFrom('visit_rollups')
          .select(['link_id', 'counts'])
          .where('link_id', 'in', page.map((l) => l.id))
          .where('day', '=', day)
          .execute();
        const spans = new SpanSums();
        for (const r of daily) spans.add(r.link_id, day, parseCounts(r.counts));
        await addToRows(tx, dialect, SPANS, spans.entries());
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
