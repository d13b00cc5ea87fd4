import { sql, type Kysely } from 'kysely';
import type { Dimension, Gap, GapReason, RollupRow, StatsStore } from '../domain/analytics/ports.js';
import { analyticsDb, type AnalyticsDB } from './analytics-schema.js';
import type { Database } from './database.js';
import { daysBetween, readPlan, SPAN_DIMENSIONS, SPANS_MARKER, SPANS_THROUGH, type SpanTables, type WindowPlan } from './rollup-spans.js';
import { accountRecording } from './visit-allowance.js';

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
    return (await this.read(linkId, undefined, dimensions, fromDay, toDay)).totals;
  }

  /** daily() and totals() in one statement: on PostgreSQL one round trip and one backend, not two. */
  window(linkId: string, daily: Dimension, totals: Dimension[], fromDay: string, toDay: string): Promise<{ daily: RollupRow[]; totals: RollupRow[] }> {
    return this.read(linkId, daily, totals, fromDay, toDay);
  }

  /**
   * The statement also reads SPANS_THROUGH, in its own snapshot: a roll-up may have folded another day
   * into the spans since freshness() read it, and a plan made for the old value would count that day
   * twice. Then the read is planned again with the new value (a day ends once a day: once is enough).
   */
  private async read(linkId: string, daily: Dimension | undefined, totals: Dimension[], fromDay: string, toDay: string) {
    for (;;) {
      const planned = this.spansThrough;
      const totalsPart = this.spanDb
        .selectFrom(this.totalsQuery(linkId, totals, fromDay, toDay).as('totals'))
        .select([sql.lit('t').as('kind'), sql.lit('').as('day'), 'dimension', 'value', 'count']);
      const throughPart = this.spanDb
        .selectFrom('analytics_state')
        .select([sql.lit('z').as('kind'), sql.lit('').as('day'), sql.lit('').as('dimension'), sql.lit('').as('value'), sql<number>`value`.as('count')])
        .where('name', '=', SPANS_THROUGH);
      // totals() alone asks for no daily rows: a dimension no row has.
      const dailyPart = this.spanDb
        .selectFrom('visit_rollups')
        .select([sql.lit('d').as('kind'), 'day', 'dimension', 'value', 'count'])
        .where('link_id', '=', linkId)
        .where('day', 'in', daysBetween(fromDay, toDay))
        .where('dimension', '=', daily ?? '');
      const rows = await dailyPart.unionAll(totalsPart).unionAll(throughPart).execute();
      const seen = rows.find((r) => r.kind === 'z');
      this.spansThrough = seen === undefined ? undefined : Number(seen.count);
      if (this.spansComplete && this.spansThrough !== planned) continue;
      return { daily: rows.filter((r) => r.kind === 'd').map(toRow), totals: rows.filter((r) => r.kind === 't').map(toRow) };
    }
  }

  /**
   * Rollups are keyed link, day, dimension, value (for the roll-up's writes), so reads name each day of
   * a range: one dimension over a range of days is then a seek per day, not a scan of every dimension.
   *
   * Sums per value over the window: from daily rows, or from spans and a few days once spans are
   * complete.
   */
  private totalsQuery(linkId: string, dimensions: Dimension[], fromDay: string, toDay: string) {
    const whole: WindowPlan = { days: [{ from: fromDay, to: toDay, sign: 1 }], spans: [] };
    const plan = this.spansComplete && dimensions.every((d) => SPAN_DIMENSIONS.includes(d)) ? readPlan(fromDay, toDay, this.spansThrough) : whole;
    const days = plan.days.map(({ from, to, sign }) =>
      this.spanDb
        .selectFrom('visit_rollups')
        .select(['dimension', 'value', sign > 0 ? sql<number>`count`.as('count') : sql<number>`-count`.as('count')])
        .where('link_id', '=', linkId)
        .where('day', 'in', daysBetween(from, to))
        .where('dimension', 'in', dimensions),
    );
    const spans = plan.spans.map(({ span, starts, sign }) =>
      this.spanDb
        .selectFrom('visit_rollup_spans')
        .select(['dimension', 'value', sign > 0 ? sql<number>`count`.as('count') : sql<number>`-count`.as('count')])
        .where('link_id', '=', linkId)
        .where('span', '=', span)
        .where('start_day', 'in', starts)
        .where('dimension', 'in', dimensions),
    );
    const parts = [...days, ...spans].reduce((all, part) => all.unionAll(part));
    return (
      this.spanDb
        .selectFrom(parts.as('parts'))
        .select(['dimension', 'value', sql<number>`sum(count)`.as('count')])
        .groupBy(['dimension', 'value'])
        // Days taken back out leave a zero for values seen only there; a value is listed when it has visits.
        .having(sql`sum(count)`, '>', 0)
    );
  }

  async rows(linkId: string, fromDay: string, toDay: string): Promise<RollupRow[]> {
    const rows = await this.db
      .selectFrom('visit_rollups')
      .select(['day', 'dimension', 'value', 'count'])
      .where('link_id', '=', linkId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .orderBy('day')
      .orderBy('dimension')
      .orderBy('value')
      .execute();
    return rows.map(toRow);
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

const toRow = (r: { day: string; dimension: string; value: string; count: number | string }): RollupRow => ({
  day: r.day,
  dimension: r.dimension as Dimension,
  value: r.value,
  count: Number(r.count),
});
