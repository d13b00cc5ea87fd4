import { sql, type Kysely } from 'kysely';
import type { Dimension, Gap, GapReason, RollupRow, StatsStore } from '../ports.js';
import { analyticsDb, type AnalyticsDB } from './analytics-schema.js';
import type { Database } from '../../platform/database/database.js';
import { daysBetween, readPlan, SPAN_DIMENSIONS, SPANS_MARKER, SPANS_THROUGH, type SpanTables, type WindowPlan } from './rollup-spans.js';
import { accountRecording } from './visit-allowance.js';
import { addCounts, countRows, parseCounts, type Counts } from './rollup-counts.js';

/** Reads of the rollups (never of raw visits: there are none) and of recording allowances. */
export class KyselyAnalyticsStore implements StatsStore {
  private readonly db: Kysely<AnalyticsDB>;
  private readonly spanDb: Kysely<AnalyticsDB & SpanTables>;
  /**
   * Whether span rollups hold every count (rollup-spans.ts), as of the last freshness() call: it reads
   * the same analytics_state rows, and a stats read calls it before totals(). Until a call has seen
   * the marker, totals() reads daily rows only, which is always right, just slower.
   */
  private spansComplete = false;
  /** The last day (number) whose counts the spans hold, as of the last freshness() call; undefined: every day. */
  private spansThrough: number | undefined;

  constructor(
    database: Database,
    private readonly freeVisitsPerMonth: number,
  ) {
    this.db = analyticsDb(database.db);
    this.spanDb = this.db.withTables<SpanTables>();
  }

  /** Window totals per value (the totals half of window(); tests compare span and daily reads with it). */
  async totals(linkId: string, dimensions: Dimension[], fromDay: string, toDay: string): Promise<RollupRow[]> {
    return (await this.read(linkId, false, dimensions, fromDay, toDay)).totals;
  }

  /** The daily series and the totals in one statement: on PostgreSQL one round trip and one backend, not two. */
  window(linkId: string, totals: Dimension[], fromDay: string, toDay: string): Promise<{ daily: RollupRow[]; totals: RollupRow[] }> {
    return this.read(linkId, true, totals, fromDay, toDay);
  }

  /**
   * One statement reads the daily series (the s and q columns of each day of the window), the counts
   * of the rows the plan adds or takes back out (totalsParts), and SPANS_THROUGH in the statement's
   * own snapshot: a roll-up may have folded another day into the spans since freshness() read it, and
   * a plan made for the old value would count that day twice. Then the read is planned again with the
   * new value (a day ends once a day: once is enough). The counts are summed here.
   */
  private async read(linkId: string, daily: boolean, totals: Dimension[], fromDay: string, toDay: string) {
    for (;;) {
      const planned = this.spansThrough;
      const throughPart = this.spanDb
        .selectFrom('analytics_state')
        .select([sql.lit('z').as('kind'), sql.lit('').as('day'), sql<number>`value`.as('s'), sql.lit(0).as('q'), sql.lit('').as('counts')])
        .where('name', '=', SPANS_THROUGH);
      // Rollups are keyed link, day: reads name each day of a range, a seek per day.
      const parts = [throughPart, ...this.totalsParts(linkId, totals, fromDay, toDay)];
      if (daily) parts.push(this.dayRows(linkId, fromDay, toDay, 'd', false));
      const rows = await parts.reduce((all, part) => all.unionAll(part)).execute();
      const seen = rows.find((r) => r.kind === 'z');
      this.spansThrough = seen === undefined ? undefined : Number(seen.s);
      if (this.spansComplete && this.spansThrough !== planned) continue;
      const sums: Counts = {};
      for (const r of rows) if (r.kind === '+' || r.kind === '-') addCounts(sums, parseCounts(r.counts), r.kind === '+' ? 1 : -1, totals);
      const sources = rows
        .filter((r) => r.kind === 'd')
        .flatMap((r) => countRows(r.day, { source: { s: Number(r.s), q: Number(r.q) } }));
      // Days taken back out leave a zero for values seen only there; a value is listed when it has visits.
      return { daily: sources, totals: countRows('', sums) };
    }
  }

  /**
   * The rows whose counts sum to the window: daily rows, or spans and a few days once spans are
   * complete (rollup-spans.ts), each marked added (+) or taken back out (-).
   */
  private totalsParts(linkId: string, dimensions: Dimension[], fromDay: string, toDay: string) {
    const whole: WindowPlan = { days: [{ from: fromDay, to: toDay, sign: 1 }], spans: [] };
    const plan = this.spansComplete && dimensions.every((d) => SPAN_DIMENSIONS.includes(d)) ? readPlan(fromDay, toDay, this.spansThrough) : whole;
    const kind = (sign: 1 | -1) => (sign > 0 ? '+' : '-');
    const days = plan.days.map(({ from, to, sign }) => this.dayRows(linkId, from, to, kind(sign), true));
    const spans = plan.spans.map(({ span, starts, sign }) =>
      this.spanDb
        .selectFrom('visit_rollup_spans')
        .select([sql.lit(kind(sign)).as('kind'), sql<string>`start_day`.as('day'), sql.lit(0).as('s'), sql.lit(0).as('q'), 'counts'])
        .where('link_id', '=', linkId)
        .where('span', '=', span)
        .where('start_day', 'in', starts),
    );
    return [...days, ...spans];
  }

  /** The daily rows of [from, to] as parts of read(): `kind`, day, s, q, and the counts when asked for. */
  private dayRows(linkId: string, from: string, to: string, kind: string, counts: boolean) {
    return this.spanDb
      .selectFrom('visit_rollups')
      .select([sql.lit(kind).as('kind'), 'day', 's', 'q', counts ? sql<string>`counts`.as('counts') : sql<string>`''`.as('counts')])
      .where('link_id', '=', linkId)
      .where('day', 'in', daysBetween(from, to));
  }

  /** Every count of the window, ordered by day, dimension and value. */
  async rows(linkId: string, fromDay: string, toDay: string): Promise<RollupRow[]> {
    const days = await this.db
      .selectFrom('visit_rollups')
      .select(['day', 'counts'])
      .where('link_id', '=', linkId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .orderBy('day')
      .execute();
    return days.flatMap((d) => countRows(d.day, parseCounts(d.counts)).sort(byDimensionAndValue));
  }

  async gaps(linkId: string, from: number, to: number, createdAt: number): Promise<Gap[]> {
    const rows = await this.db
      .selectFrom('visit_gaps')
      .select(['from_ms', 'to_ms', 'reason'])
      .where((eb) => eb.or([eb('link_id', '=', linkId), eb.and([eb('link_id', 'is', null), eb('to_ms', '>', createdAt)])]))
      .where('to_ms', '>=', from)
      .where('from_ms', '<=', to)
      .orderBy('from_ms')
      .execute();
    return rows.map((r) => ({ from: Number(r.from_ms), to: Number(r.to_ms), reason: r.reason as GapReason }));
  }

  async freshness(): Promise<{ refreshedAt: number | undefined; generation: number }> {
    const names = ['rolled_up_at', 'generation', SPANS_MARKER, SPANS_THROUGH];
    const rows = await this.db.selectFrom('analytics_state').select(['name', 'value']).where('name', 'in', names).execute();
    const value = (name: string) => rows.find((r) => r.name === name)?.value;
    this.spansComplete = value(SPANS_MARKER) !== undefined;
    const through = value(SPANS_THROUGH);
    this.spansThrough = through === undefined ? undefined : Number(through);
    const refreshedAt = value('rolled_up_at');
    return { refreshedAt: refreshedAt === undefined ? undefined : Number(refreshedAt), generation: Number(value('generation') ?? 0) };
  }

  /** For the usage endpoint: visits recorded this UTC month, free visits left, unused pack visits. */
  accountRecording(accountId: string, month: string): Promise<{ recordedThisMonth: number; freeLeft: number; packsLeft: number }> {
    return accountRecording(this.db, this.freeVisitsPerMonth, accountId, month);
  }
}

const byDimensionAndValue = (a: RollupRow, b: RollupRow) =>
  a.dimension < b.dimension ? -1 : a.dimension > b.dimension ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
