import { sql, type Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../../platform/database/database.js';
import type { Block, Gap, GapReason, LinkDayVisitors, LinkWindow, StatsStore, TaggedLink } from '../ports.js';
import type { DB } from '../../platform/database/schema.js';
import { holdsTag } from '../../links/link-tags.js';
import { keyOf, storedBlocks } from './compaction.js';
import { compare, COMPACTED, DaySummary, dayNumber, dayOfNumber, DayTotals, LEVELS, parseBreakdowns } from '../counts.js';

const toGap = (r: { link_id: string | null; from_ms: number; to_ms: number; reason: string }): Gap => ({
  from: Number(r.from_ms),
  to: Number(r.to_ms),
  reason: r.reason as GapReason,
  ...(r.link_id === null ? {} : { linkId: r.link_id }),
});

type RowKey = { link_id: string; day: string; writer: string; version: number };
/** A row of a day not compacted yet (today's, mostly), cached at its version. */
type KeptRow = { version: number; counts: string; visitors: Uint8Array; bytes: number };

/** Per link-day, in the rows' order, its stamp (LinkDay.stamp): the key, then `writer:version` of each row. */
function stampsOf(rows: readonly RowKey[]): Map<string, string> {
  const stamps = new Map<string, string>();
  for (const row of rows) {
    const key = keyOf(row.link_id, row.day);
    stamps.set(key, `${stamps.get(key) ?? key} ${row.writer}:${row.version}`);
  }
  return stamps;
}

/** A link's 90 busy days take about a megabyte of this, a quiet link's a few kilobytes. */
const KEPT_BYTES = 64 * 1024 * 1024;

/** Caches what it adds up, stamped with the rows' versions, and reads again only rows whose version changed (ADR 0042). */
export class KyselyStatsStore implements StatsStore {
  private readonly db: Kysely<DB>;
  private readonly kept = new LRUCache<string, DayTotals | DaySummary | (Block & { bytes: number }) | KeptRow>({
    maxSize: KEPT_BYTES,
    sizeCalculation: (kept) => kept.bytes,
  });

  constructor(database: Database) {
    this.db = database.db;
  }

  async linkDays(linkIds: readonly string[], fromDay: string, toDay: string): Promise<Map<string, LinkDayVisitors[]>> {
    const days = new Map<string, LinkDayVisitors[]>(linkIds.map((id) => [id, []]));
    if (linkIds.length === 0) return days;
    for (let attempt = 1; ; attempt++) {
      const read = await this.fullDays(await this.rowKeys(linkIds, fromDay, toDay));
      if (read !== undefined) {
        for (const day of read) days.get(day.linkId)!.push(day);
        return days;
      }
      // Five compactions in a row between the two queries: a 503 rather than an endless wait.
      if (attempt === 5) throw new Error('the rows of the days kept changing while they were read');
    }
  }

  /** Ordered by link, day and writer, as stampsOf and fullDays need. */
  private rowKeys(linkIds: readonly string[], fromDay: string, toDay: string) {
    return this.keysOfRows(linkIds, fromDay, toDay).orderBy('link_id').orderBy('day').orderBy('writer').execute();
  }

  private keysOfRows(linkIds: readonly string[], fromDay: string, toDay: string) {
    return this.db
      .selectFrom('visit_tallies')
      .select(['link_id', 'day', 'writer', 'version', sql<number>`0`.as('level')])
      .where('link_id', 'in', linkIds)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay);
  }

  /** rowKeys of one link, then its blocks' keys (`day` is a block's start): one statement, so it sees one state of both tables. */
  private async rowAndBlockKeys(linkId: string, fromDay: string, toDay: string) {
    const blocks = storedBlocks(this.db, [linkId], fromDay, toDay).select((eb) => [
      'link_id',
      eb.ref('start').as('day'),
      sql<string>`''`.as('writer'),
      'version',
      'level',
    ]);
    const keys = await this.db
      .selectFrom(this.keysOfRows([linkId], fromDay, toDay).unionAll(blocks).as('k'))
      .selectAll()
      .orderBy('level')
      .orderBy('day')
      .orderBy('writer')
      .execute();
    return keys.map((key) => ({ ...key, level: Number(key.level), version: Number(key.version) }));
  }

  /**
   * Reads only the rows whose version changed: a busy link's today is its compacted row and a row of the hour per instance, of which a flush
   * changes one. Undefined when a compaction added rows up since the keys were read.
   */
  private async fullDays(keys: readonly RowKey[]): Promise<DayTotals[] | undefined> {
    const stamps = stampsOf(keys);
    const found = new Map<string, DayTotals>();
    for (const [key, stamp] of stamps) {
      const kept = this.kept.get(key);
      if (kept instanceof DayTotals && kept.stamp === stamp) found.set(key, kept);
    }
    const stale = keys.filter((row) => !found.has(keyOf(row.link_id, row.day)));
    const rowKey = (row: RowKey) => `R\t${row.link_id}\t${row.day}\t${row.writer}`;
    // Held here too: the cache may evict them meanwhile.
    const rows = new Map<string, KeptRow>();
    const unread: RowKey[] = [];
    for (const row of stale) {
      const kept = this.kept.get(rowKey(row)) as KeptRow | undefined;
      if (kept?.version === row.version) rows.set(rowKey(row), kept);
      else unread.push(row);
    }
    if (unread.length > 0) {
      const wanted = new Set(unread.map(rowKey));
      const read = await this.db
        .selectFrom('visit_tallies')
        .select(['link_id', 'day', 'writer', 'version', 'counts', 'visitors'])
        .where('link_id', 'in', [...new Set(unread.map((row) => row.link_id))])
        .where('day', 'in', [...new Set(unread.map((row) => row.day))])
        .where('writer', 'in', [...new Set(unread.map((row) => row.writer))])
        .execute();
      // Cache a compacted row only beside rows of the hour (today's); one that holds its day alone is cached as the day.
      const beside = new Set(stale.filter((row) => row.writer !== COMPACTED).map((row) => keyOf(row.link_id, row.day)));
      for (const row of read) {
        if (!wanted.has(rowKey(row))) continue;
        const kept = { version: row.version, counts: row.counts, visitors: row.visitors, bytes: 2 * row.counts.length + row.visitors.length };
        rows.set(rowKey(row), kept);
        if (row.writer !== COMPACTED || beside.has(keyOf(row.link_id, row.day))) this.kept.set(rowKey(row), kept);
      }
      // A writer's row at a later version only gained visits; a row gone, or a compacted row at another version, means a compaction ran.
      const changed = (row: RowKey) => {
        const got = rows.get(rowKey(row));
        return got === undefined || (row.writer === COMPACTED && got.version !== row.version);
      };
      if (unread.some(changed)) return undefined;
    }
    for (let i = 0, j = 0; i < stale.length; i = j) {
      while (j < stale.length && stale[j]!.link_id === stale[i]!.link_id && stale[j]!.day === stale[i]!.day) j++;
      const { link_id, day } = stale[i]!;
      const key = keyOf(link_id, day);
      const totals = new DayTotals(
        day,
        stale.slice(i, j).flatMap((row) => rows.get(rowKey(row)) ?? []),
        stamps.get(key),
        link_id,
      );
      this.kept.set(key, totals);
      found.set(key, totals);
    }
    return [...stamps.keys()].flatMap((key) => found.get(key) ?? []);
  }

  async linkWindow(linkId: string, fromDay: string, toDay: string, perDay = false): Promise<LinkWindow> {
    for (let attempt = 1; attempt < 3; attempt++) {
      const window = await this.readWindow(linkId, fromDay, toDay, perDay);
      if (window !== undefined) return window;
    }
    // Compactions kept committing between the reads: add up the days' rows, without summaries.
    return { days: (await this.linkDays([linkId], fromDay, toDay)).get(linkId)!, blocks: [] };
  }

  /** Summaries, blocks and rows as ADR 0042 describes; undefined when a compaction changes what it reads between its queries. */
  private async readWindow(linkId: string, fromDay: string, toDay: string, perDay: boolean): Promise<LinkWindow | undefined> {
    // A block rebuilt after this statement has another version, which blocks() detects. The CSV (perDay) uses no blocks.
    const keys = perDay ? await this.rowKeys([linkId], fromDay, toDay) : await this.rowAndBlockKeys(linkId, fromDay, toDay);
    const rows = keys.filter((key) => key.level === 0);
    // Per stored block, `level\tstart`: its version.
    const versions = new Map(keys.filter((key) => key.level > 0).map((key) => [`${key.level}\t${key.day}`, key.version]));
    // Per day from the first: undefined without rows; the compacted row's (and summary's) version where it alone holds the day; else 0.
    const first = dayNumber(fromDay);
    const closed: (number | undefined)[] = [];
    const names: string[] = [];
    for (const row of rows) {
      const at = dayNumber(row.day) - first;
      closed[at] = closed[at] === undefined && row.writer === COMPACTED ? Number(row.version) : 0;
      names[at] = row.day;
    }
    // Cover the window from its first day with the largest stored block that starts there and fits, else one day.
    const blocks: { level: number; start: string }[] = [];
    const inBlocks = new Set<number>();
    const last = dayNumber(toDay) - first;
    for (let at = 0; at <= last && !perDay;) {
      let span = 1;
      for (let level = LEVELS; level >= 1; level--) {
        const size = 2 ** level;
        if ((first + at) % size !== 0 || at + size - 1 > last) continue;
        const counted = closed.slice(at, at + size).flatMap((version, i) => (version === undefined ? [] : [[at + i, version]]));
        const start = dayOfNumber(first + at);
        if (counted.length > 0 && !(versions.has(`${level}\t${start}`) && counted.every(([, version]) => version! > 0))) continue;
        if (counted.length > 0) blocks.push({ level, start });
        for (const [day] of counted) inBlocks.add(day!);
        span = size;
        break;
      }
      at += span;
    }
    const summaries = closed.flatMap((version, at) => (version! > 0 ? [{ day: names[at]!, version: version!, counts: !inBlocks.has(at) }] : []));
    const full = rows.filter((row) => closed[dayNumber(row.day) - first] === 0);
    const [days, read, blockCounts] = await Promise.all([this.fullDays(full), this.summaries(linkId, summaries), this.blocks(linkId, blocks, versions)]);
    if (days === undefined || read === undefined || blockCounts === undefined) return undefined;
    return { days: [...days, ...read].sort((x, y) => compare(x.day, y.day)), blocks: blockCounts };
  }

  /** Breakdowns too where `counts`; undefined if a version is not the one listed. */
  private async summaries(linkId: string, wanted: { day: string; version: number; counts: boolean }[]): Promise<DaySummary[] | undefined> {
    const key = (day: string, counts: boolean) => `${counts ? 'C' : 'S'}\t${linkId}\t${day}`;
    const out: DaySummary[] = [];
    const missing = wanted.filter(({ day, version, counts }) => {
      const kept = this.kept.get(key(day, counts));
      if (!(kept instanceof DaySummary) || kept.stamp !== `${key(day, counts)} ${version}`) return true;
      out.push(kept);
      return false;
    });
    if (missing.length === 0) return out;
    const withCounts = missing.filter(({ counts }) => counts).map(({ day }) => day);
    const [summaries, counts] = await Promise.all([
      this.db
        .selectFrom('visit_sums')
        .select(['start', 'version', 'summary'])
        .where('link_id', '=', linkId)
        .where('level', '=', 0)
        // A range, not a list: PostgreSQL answers a list of 90 days about four times slower.
        .where('start', '>=', missing[0]!.day)
        .where('start', '<=', missing.at(-1)!.day)
        .execute(),
      withCounts.length === 0
        ? []
        : this.db
            .selectFrom('visit_tallies')
            .select(['day', 'version', 'counts'])
            .where('link_id', '=', linkId)
            .where('writer', '=', COMPACTED)
            .where('day', 'in', withCounts)
            .execute(),
    ]);
    const summaryOf = new Map(summaries.map((row) => [row.start, row]));
    const countsOf = new Map(counts.map((row) => [row.day, row]));
    for (const { day, version, counts: withBreakdowns } of missing) {
      const summary = summaryOf.get(day);
      const row = countsOf.get(day);
      if (summary?.summary == null || Number(summary.version) !== version || (withBreakdowns && Number(row?.version) !== version)) return undefined;
      const read = new DaySummary(day, summary.summary, `${key(day, withBreakdowns)} ${version}`, withBreakdowns ? row!.counts : undefined);
      this.kept.set(key(day, withBreakdowns), read);
      out.push(read);
    }
    return out;
  }

  /** Undefined if a version is not the one listed. */
  private async blocks(linkId: string, wanted: { level: number; start: string }[], versions: Map<string, number>): Promise<Block[] | undefined> {
    const key = (level: number, start: string) => `B\t${linkId}\t${level}\t${start}`;
    const out: Block[] = [];
    const missing = wanted.filter(({ level, start }) => {
      // Only blocks are keyed `B\t…`.
      const kept = this.kept.get(key(level, start)) as Block | undefined;
      if (kept === undefined || kept.stamp !== `${key(level, start)} ${versions.get(`${level}\t${start}`)}`) return true;
      out.push(kept);
      return false;
    });
    if (missing.length === 0) return out;
    const read = await this.db
      .selectFrom('visit_sums')
      .select(['level', 'start', 'version', 'counts'])
      .where('link_id', '=', linkId)
      // By level and start, so blocks of other levels that start on those days are not read.
      .where((eb) => eb.or(missing.map(({ level, start }) => eb.and([eb('level', '=', level), eb('start', '=', start)]))))
      .execute();
    for (const { level, start } of missing) {
      const row = read.find((r) => r.level === level && r.start === start);
      const version = versions.get(`${level}\t${start}`);
      if (typeof row?.counts !== 'string' || Number(row.version) !== version) return undefined;
      const block = { stamp: `${key(level, start)} ${version}`, counts: parseBreakdowns(row.counts), bytes: 4 * row.counts.length };
      this.kept.set(key(level, start), block);
      out.push(block);
    }
    return out;
  }

  /** Matches tags as the links list does (holdsTag). */
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

  /** A dead instance holds this back until it is reaped, rightly: its unflushed visits are not counted (they become a gap). */
  async refreshedAt(): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('recorder_instances')
      .select((eb) => eb.fn.min<number>('flushed_to').as('at'))
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }
}
