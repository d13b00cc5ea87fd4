import { sql, type Kysely } from 'kysely';
import type { Database } from '../../platform/database/database.js';
import type { CountRow, CountView, Gap, GapReason, StatsStore, TaggedLink, VisitorSketch } from '../ports.js';
import type { DB } from '../../platform/database/schema.js';
import { holdsTag } from '../../links/link-tags.js';
import { countRowsOf } from '../counts.js';
import { unpackSketches } from '../visitors.js';

/** A tally row's four sketches (in the column order /s/, /q/, bots through each), the empty ones left out. */
const sketchesOf = (r: { day: string; visitors: Uint8Array }): VisitorSketch[] =>
  unpackSketches(r.visitors).flatMap((sketch, at) => (sketch.length === 0 ? [] : [{ day: r.day, source: at % 2 === 1 ? 'q' : 's', bot: at >= 2, sketch }]));
const toGap = (r: { from_ms: number; to_ms: number; reason: string }): Gap => ({ from: Number(r.from_ms), to: Number(r.to_ms), reason: r.reason as GapReason });

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
    const rows = await this.db
      .selectFrom('visit_tallies')
      .select(['day', 'counts'])
      .where('link_id', '=', linkId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .execute();
    return countRowsOf(rows, view);
  }

  /**
   * The account's links whose tags hold `tag` (as the links list matches them: holdsTag), their `time`
   * counts and unique-visitor sketches, and the gaps of any of them or of every link (after the first
   * of them was created) overlapping [from, to].
   */
  async tagCounts(accountId: string, tag: string, window: { fromDay: string; toDay: string; from: number; to: number }) {
    const links: TaggedLink[] = (
      await this.db.selectFrom('links').select(['id', 'slug', 'title', 'created_at']).where('account_id', '=', accountId).where(holdsTag(tag)).execute()
    ).map((l) => ({ id: l.id, slug: l.slug, title: l.title, createdAt: Number(l.created_at) }));
    if (links.length === 0) return { links, rows: [], visitors: [], gaps: [] };
    const ids = links.map((l) => l.id);
    const firstCreated = Math.min(...links.map((l) => l.createdAt));
    const [tallies, gaps] = await Promise.all([
      this.db
        .selectFrom('visit_tallies')
        .select(['link_id', 'day', 'counts', 'visitors'])
        .where('link_id', 'in', ids)
        .where('day', '>=', window.fromDay)
        .where('day', '<=', window.toDay)
        .execute(),
      this.db
        .selectFrom('visit_gaps')
        .select(['link_id', 'from_ms', 'to_ms', 'reason'])
        .where((eb) => eb.or([eb('link_id', 'in', ids), eb.and([eb('link_id', 'is', null), eb('to_ms', '>', firstCreated)])]))
        .where('to_ms', '>=', window.from)
        .where('from_ms', '<=', window.to)
        .orderBy('from_ms')
        .execute(),
    ]);
    const byLink = new Map<string, typeof tallies>();
    for (const row of tallies) {
      const days = byLink.get(row.link_id);
      if (days === undefined) byLink.set(row.link_id, [row]);
      else days.push(row);
    }
    return {
      links,
      rows: [...byLink].flatMap(([linkId, days]) =>
        countRowsOf(days, { quarters: true, perDay: true })
          .filter((row) => row.dimension === 'time')
          .map((row) => ({ ...row, linkId })),
      ),
      visitors: tallies.flatMap((r) => sketchesOf(r).map((sketch) => ({ ...sketch, linkId: r.link_id }))),
      gaps: gaps.map((r) => ({ ...toGap(r), ...(r.link_id === null ? {} : { linkId: r.link_id }) })),
    };
  }

  async visitors(linkId: string, fromDay: string, toDay: string): Promise<VisitorSketch[]> {
    const rows = await this.db
      .selectFrom('visit_tallies')
      .select(['day', 'visitors'])
      .where('link_id', '=', linkId)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .execute();
    return rows.flatMap(sketchesOf);
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
    return rows.map(toGap);
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
