import { sql, type Kysely } from 'kysely';
import type { Database, Dialect } from '../../platform/database/database.js';
import type { DayCounts, Gap, GapReason, StatsStore } from '../ports.js';
import { analyticsDb, type AnalyticsDB } from './analytics-schema.js';
import { parseCounts, PAST_VERSION } from './rollups.js';

/** Reads of the rollups (never of raw visits: there are none) and of recording allowances. */
export class KyselyStatsStore implements StatsStore {
  private readonly db: Kysely<AnalyticsDB>;
  private readonly dialect: Dialect;

  constructor(
    database: Database,
    private readonly freeVisitsPerMonth: number,
  ) {
    this.db = analyticsDb(database.db);
    this.dialect = database.dialect;
  }

  /** A day's rows of every writer: `s` and `q` summed, `counts` their JSON objects joined for parseCounts. */
  async days(linkId: string, fromDay: string, toDay: string, withCounts: boolean): Promise<DayCounts[]> {
    const joined = this.dialect === 'sqlite' ? sql<string>`group_concat(counts, ',')` : sql<string>`string_agg(counts, ',')`;
    const rows = await this.db
      .selectFrom('visit_rollups')
      .select((eb) => ['day', eb.fn.sum<number>('s').as('s'), eb.fn.sum<number>('q').as('q'), ...(withCounts ? [joined.as('counts')] : [])])
      .where('link_id', '=', linkId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .groupBy('day')
      .orderBy('day')
      .execute();
    return rows.map((r) => ({ day: r.day, s: Number(r.s), q: Number(r.q), counts: 'counts' in r ? parseCounts(r.counts) : [] }));
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

  /**
   * The oldest `flushed_to` of the instances' rows: an instance that died holds it back until it is
   * reaped, which is right, since its unflushed visits are not counted (they become a gap).
   */
  async freshness(): Promise<{ refreshedAt: number | undefined; pastVersion: number }> {
    const [covered, version] = await Promise.all([
      this.db
        .selectFrom('recorder_instances')
        .select((eb) => eb.fn.min<number>('flushed_to').as('at'))
        .executeTakeFirst(),
      this.db.selectFrom('analytics_state').select('value').where('name', '=', PAST_VERSION).executeTakeFirst(),
    ]);
    const at = covered?.at;
    return { refreshedAt: at === null || at === undefined ? undefined : Number(at), pastVersion: Number(version?.value ?? 0) };
  }

  /** For the usage endpoint: visits recorded this UTC month, free visits left, unused pack visits. */
  async accountRecording(accountId: string, month: string): Promise<{ recordedThisMonth: number; freeLeft: number; packsLeft: number }> {
    const [row, packs] = await Promise.all([
      this.db.selectFrom('visit_months').select(['recorded', 'free_used']).where('account_id', '=', accountId).where('month', '=', month).executeTakeFirst(),
      this.db
        .selectFrom('capacity_packs')
        .select(sql<number>`coalesce(sum(visits - visits_used), 0)`.as('left'))
        .where('account_id', '=', accountId)
        .where('status', '=', 'active')
        .executeTakeFirstOrThrow(),
    ]);
    const freeLeft = Math.max(0, this.freeVisitsPerMonth - Number(row?.free_used ?? 0));
    return { recordedThisMonth: Number(row?.recorded ?? 0), freeLeft, packsLeft: Number(packs.left) };
  }
}
