import { sql, type Kysely } from 'kysely';
import type { Dimension, Gap, GapReason, RollupRow, StatsStore } from '../domain/analytics/ports.js';
import { analyticsDb, type AnalyticsDB } from './analytics-schema.js';
import type { Database } from './database.js';
import { accountRecording } from './visit-allowance.js';

/** Reads of the rollups (never of raw visits: there are none) and of recording allowances. */
export class KyselyAnalyticsStore implements StatsStore {
  private readonly db: Kysely<AnalyticsDB>;

  constructor(
    database: Database,
    private readonly freeVisitsPerMonth: number,
  ) {
    this.db = analyticsDb(database.db);
  }

  async daily(linkId: string, dimension: Dimension, fromDay: string, toDay: string): Promise<RollupRow[]> {
    const rows = await this.db
      .selectFrom('visit_rollups')
      .select(['day', 'dimension', 'value', 'count'])
      .where('link_id', '=', linkId)
      .where('dimension', '=', dimension)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .execute();
    return rows.map(toRow);
  }

  async totals(linkId: string, dimensions: Dimension[], fromDay: string, toDay: string): Promise<RollupRow[]> {
    const rows = await this.db
      .selectFrom('visit_rollups')
      .select(['dimension', 'value', sql<number>`sum(count)`.as('count')])
      .where('link_id', '=', linkId)
      .where('dimension', 'in', dimensions)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .groupBy(['dimension', 'value'])
      .execute();
    return rows.map((r) => toRow({ ...r, day: '' }));
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
    const rows = await this.db.selectFrom('analytics_state').select(['name', 'value']).where('name', 'in', ['rolled_up_at', 'generation']).execute();
    const value = (name: string) => rows.find((r) => r.name === name)?.value;
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
