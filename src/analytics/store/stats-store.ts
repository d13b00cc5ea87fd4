import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../../platform/database/database.js';
import type { Gap, GapReason, LinkDay, StatsStore, TaggedLink } from '../ports.js';
import type { DB } from '../../platform/database/schema.js';
import { holdsTag } from '../../links/link-tags.js';
import { DayTotals } from '../counts.js';

const toGap = (r: { link_id: string | null; from_ms: number; to_ms: number; reason: string }): Gap => ({
  from: Number(r.from_ms),
  to: Number(r.to_ms),
  reason: r.reason as GapReason,
  ...(r.link_id === null ? {} : { linkId: r.link_id }),
});

/** A row's part of its link and day's stamp (LinkDay.stamp), after the key `link\tday`. */
const stampPart = (row: { writer: string; version: number }) => ` ${row.writer}:${row.version}`;

/** Added-up days kept: about a megabyte for a link's 90 busy days, a few kilobytes for a quiet link's. */
const KEPT_BYTES = 64 * 1024 * 1024;

/**
 * Reads of the counts, sketches and gaps (there are no raw visits), and of recording allowances. A
 * link's day, added up from its writers' rows (DayTotals), is kept with the writers and versions it
 * was added up from: a read asks for the keys and versions of the window's rows, and reads whole only
 * the days whose rows changed since (today's, on a link with visits), or that it does not hold.
 */
export class KyselyStatsStore implements StatsStore {
  private readonly db: Kysely<DB>;
  private readonly kept = new LRUCache<string, DayTotals>({ maxSize: KEPT_BYTES, sizeCalculation: (totals) => totals.bytes });

  constructor(
    database: Database,
    private readonly freeVisitsPerMonth: number,
  ) {
    this.db = database.db;
  }

  async linkDays(linkIds: readonly string[], fromDay: string, toDay: string): Promise<Map<string, LinkDay[]>> {
    const days = new Map<string, LinkDay[]>(linkIds.map((id) => [id, []]));
    if (linkIds.length === 0) return days;
    const window = <T extends SelectQueryBuilder<DB, 'visit_tallies', object>>(query: T) =>
      query.where('link_id', 'in', linkIds).where('day', '>=', fromDay).where('day', '<=', toDay) as T;
    // Per link and day (in that order), the stamp of its rows: the key, then each writer and its row's version.
    const stamps = new Map<string, string>();
    const keys = window(this.db.selectFrom('visit_tallies').select(['link_id', 'day', 'writer', 'version']));
    for (const row of await keys.orderBy('link_id').orderBy('day').orderBy('writer').execute()) {
      const key = `${row.link_id}\t${row.day}`;
      stamps.set(key, (stamps.get(key) ?? key) + stampPart(row));
    }
    const found = new Map<string, LinkDay>();
    const stale: [string, string][] = [];
    for (const [key, stamp] of stamps) {
      const kept = this.kept.get(key);
      if (kept?.stamp === stamp) found.set(key, kept);
      else stale.push(key.split('\t') as [string, string]);
    }
    // The stale days are read again with the days after them (today's is stale on any link with visits).
    if (stale.length > 0) {
      const read = await window(this.db.selectFrom('visit_tallies').select(['link_id', 'day', 'writer', 'version', 'counts', 'visitors']))
        .where('link_id', 'in', [...new Set(stale.map(([link]) => link))])
        .where(
          'day',
          '>=',
          stale.map(([, day]) => day).reduce((a, b) => (a < b ? a : b)),
        )
        .orderBy('link_id')
        .orderBy('day')
        .orderBy('writer')
        .execute();
      for (let i = 0, j = 0; i < read.length; i = j) {
        while (j < read.length && read[j]!.link_id === read[i]!.link_id && read[j]!.day === read[i]!.day) j++;
        const rows = read.slice(i, j);
        const key = `${rows[0]!.link_id}\t${rows[0]!.day}`;
        const totals = new DayTotals(
          rows[0]!.day,
          rows,
          rows.reduce((stamp, row) => stamp + stampPart(row), key),
        );
        this.kept.set(key, totals);
        found.set(key, totals);
      }
    }
    for (const key of stamps.keys()) if (found.has(key)) days.get(key.split('\t')[0]!)!.push(found.get(key)!);
    return days;
  }

  /** The account's links whose tags hold `tag`, as the links list matches them (holdsTag). */
  async taggedLinks(accountId: string, tag: string): Promise<TaggedLink[]> {
    const links = await this.db
      .selectFrom('links')
      .select(['id', 'slug', 'title', 'created_at'])
      .where('account_id', '=', accountId)
      .where(holdsTag(tag))
      .execute();
    return links.map((l) => ({ id: l.id, slug: l.slug, title: l.title, createdAt: Number(l.created_at) }));
  }

  async gaps(linkIds: readonly string[], from: number, to: number, createdAt: number): Promise<Gap[]> {
    if (linkIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('visit_gaps')
      .select(['link_id', 'from_ms', 'to_ms', 'reason'])
      .where((eb) => eb.or([eb('link_id', 'in', linkIds), eb.and([eb('link_id', 'is', null), eb('to_ms', '>', createdAt)])]))
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
