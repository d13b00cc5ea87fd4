import { sql, type Kysely } from 'kysely';
import type { Database } from '../../platform/database/database.js';
import type { CountRow, CountView, Gap, GapReason, Source, StatsStore, TaggedLink } from '../ports.js';
import type { DB } from '../../platform/database/schema.js';
import { holdsTag } from '../../links/link-tags.js';

type Counted = { day: string; dimension: string; value: string; s: number; q: number; s_bot: number; q_bot: number };
const toRow = (r: Counted): CountRow => ({
  day: r.day,
  dimension: r.dimension,
  value: r.value,
  n: [Number(r.s), Number(r.q), Number(r.s_bot), Number(r.q_bot)],
});

/** Reads of the counts, sketches and gaps (there are no raw visits), and of recording allowances. */
export class KyselyStatsStore implements StatsStore {
  private readonly db: Kysely<DB>;

  constructor(
    database: Database,
    private readonly freeVisitsPerMonth: number,
  ) {
    this.db = database.db;
  }

  async counts(linkId: string, fromDay: string, toDay: string, view: CountView): Promise<CountRow[]> {
    const sums = [sql<number>`sum(s)`.as('s'), sql<number>`sum(q)`.as('q'), sql<number>`sum(s_bot)`.as('s_bot'), sql<number>`sum(q_bot)`.as('q_bot')];
    const days = this.db.selectFrom('visit_counts').where('link_id', '=', linkId).where('day', '>=', fromDay).where('day', '<=', toDay);
    // The database sums: a 90-day window holds tens of thousands of rows, its answer a few thousand.
    const slot = view.quarters ? sql<string>`value` : sql<string>`substr(value, 1, 3) || '00'`;
    const times = days
      .select(['day', sql<string>`'time'`.as('dimension'), slot.as('value'), ...sums])
      .where('dimension', '=', 'time')
      .groupBy(['day', slot]);
    const values = view.perDay
      ? days.select(['day', 'dimension', 'value', 's', 'q', 's_bot', 'q_bot']).where('dimension', '<>', 'time')
      : days
          .select([sql<string>`''`.as('day'), 'dimension', 'value', ...sums])
          .where('dimension', '<>', 'time')
          .groupBy(['dimension', 'value']);
    const [timeRows, valueRows] = await Promise.all([times.execute(), values.execute()]);
    return [...timeRows, ...valueRows].map(toRow);
  }

  /**
   * The account's links whose tags hold `tag` (as the links list matches them: holdsTag), and their
   * `time` counts.
   */
  async tagCounts(accountId: string, tag: string, fromDay: string, toDay: string) {
    const links: TaggedLink[] = await this.db
      .selectFrom('links')
      .select(['id', 'slug', 'title'])
      .where('account_id', '=', accountId)
      .where(holdsTag(tag))
      .execute();
    if (links.length === 0) return { links, rows: [] };
    const rows = await this.db
      .selectFrom('visit_counts')
      .select(['link_id', 'day', 'dimension', 'value', 's', 'q', 's_bot', 'q_bot'])
      .where(
        'link_id',
        'in',
        links.map((l) => l.id),
      )
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .where('dimension', '=', 'time')
      .execute();
    return { links, rows: rows.map((r) => ({ ...toRow(r), linkId: r.link_id })) };
  }

  async visitors(linkId: string, fromDay: string, toDay: string) {
    const rows = await this.db
      .selectFrom('visit_visitors')
      .select(['day', 'source', 'bot', 'sketch'])
      .where('link_id', '=', linkId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .execute();
    return rows.map((r) => ({ day: r.day, source: r.source as Source, bot: Number(r.bot) === 1, sketch: r.sketch }));
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
  async refreshedAt(): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('recorder_instances')
      .select((eb) => eb.fn.min<number>('flushed_to').as('at'))
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
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
