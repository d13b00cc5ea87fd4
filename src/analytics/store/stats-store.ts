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

/** A row of `visit_tallies` by its key and version. */
type RowKey = { link_id: string; day: string; writer: string; version: number };
/** A row of today's (or of another day not compacted yet) as read, kept at its version. */
type KeptRow = { version: number; counts: string; visitors: Uint8Array; bytes: number };

/** Per link and day (keyed `link\tday`, in the rows' order), its stamp (LinkDay.stamp): the key, then each writer and its row's version. */
function stampsOf(rows: readonly RowKey[]): Map<string, string> {
  const stamps = new Map<string, string>();
  for (const row of rows) {
    const key = keyOf(row.link_id, row.day);
    stamps.set(key, `${stamps.get(key) ?? key} ${row.writer}:${row.version}`);
  }
  return stamps;
}

/** Added-up days kept: about a megabyte for a link's 90 busy days, a few kilobytes for a quiet link's. */
const KEPT_BYTES = 64 * 1024 * 1024;

/**
 * Reads of the counts, sketches and gaps (there are no raw visits). A
 * link's day, added up from its writers' rows (DayTotals), is kept with the writers and versions it
 * was added up from: a read asks for the keys and versions of the window's rows, and reads whole only
 * the days whose rows changed since (today's, on a link with visits), or that it does not hold.
 */
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
      // Compactions committed between the two queries five times running: an answer of 503, not a wait without end.
      if (attempt === 5) throw new Error('the rows of the days kept changing while they were read');
    }
  }

  /** The keys and versions of the links' rows of [fromDay, toDay], by link, day and writer (`level` 0). */
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

  /**
   * rowKeys of one link, and after them its blocks (storedBlocks: their `level` from 1, `day` their
   * start) that start in [fromDay, toDay]: one statement, one round trip, one state of both tables.
   */
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
   * The days of these rows (keys and versions, by link, day and writer), in that order: each added up
   * from its rows, kept ones as they are while their stamps hold. Of the others (today's, on a link with
   * visits) only the rows whose version is not kept are read: a busy link's today is its compacted row
   * and a row of the hour per instance (counts.ts, Tallies), of which a flush changes one. Undefined
   * when a compaction added rows up since the keys were read (a row gone, or a compacted row changed).
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
    // The rows the days are added up from, held here: the cache may let go of them meanwhile.
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
      // A compacted row beside others (today's, beside the rows of the hour) is kept; one that holds its day alone is kept as the day.
      const beside = new Set(stale.filter((row) => row.writer !== COMPACTED).map((row) => keyOf(row.link_id, row.day)));
      for (const row of read) {
        if (!wanted.has(rowKey(row))) continue;
        const kept = { version: row.version, counts: row.counts, visitors: row.visitors, bytes: 2 * row.counts.length + row.visitors.length };
        rows.set(rowKey(row), kept);
        if (row.writer !== COMPACTED || beside.has(keyOf(row.link_id, row.day))) this.kept.set(rowKey(row), kept);
      }
      // A writer's row at a later version holds what it held and more; a row gone, or a compacted row at another version, is a compaction's doing.
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
    // Compactions kept committing between the reads: the days as their rows hold them, without summaries.
    return { days: (await this.linkDays([linkId], fromDay, toDay)).get(linkId)!, blocks: [] };
  }

  /**
   * A link's window: its compacted days' summaries, their breakdowns from as few blocks as cover them (the
   * largest first, store/compaction.ts), and the other days added up from their rows. Undefined when
   * a compaction changed what it read between its queries.
   */
  private async readWindow(linkId: string, fromDay: string, toDay: string, perDay: boolean): Promise<LinkWindow | undefined> {
    // The blocks' keys and the rows' in one statement, which sees one state of both: a block built
    // again after it has another version, which blocks() finds. A read per day (the CSV) uses no blocks.
    const keys = perDay ? await this.rowKeys([linkId], fromDay, toDay) : await this.rowAndBlockKeys(linkId, fromDay, toDay);
    const rows = keys.filter((key) => key.level === 0);
    // Per stored block, `level\tstart`: its version.
    const versions = new Map(keys.filter((key) => key.level > 0).map((key) => [`${key.level}\t${key.day}`, key.version]));
    // Per day of the window (from its first): undefined without counts; the compacted row's version where it alone holds the day (its summary's too), else 0.
    const first = dayNumber(fromDay);
    const closed: (number | undefined)[] = [];
    const names: string[] = [];
    for (const row of rows) {
      const at = dayNumber(row.day) - first;
      closed[at] = closed[at] === undefined && row.writer === COMPACTED ? Number(row.version) : 0;
      names[at] = row.day;
    }
    // The window from its first day: the largest block that starts there and lies in the window, else the day.
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

  /** Compacted days' summaries (with their breakdowns where `counts`); undefined if a version is not the one listed. */
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
        // A range, not a list of the days: PostgreSQL answered a list of ninety days in about four times the time.
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

  /** Blocks' breakdowns; undefined if a version is not the one listed. */
  private async blocks(linkId: string, wanted: { level: number; start: string }[], versions: Map<string, number>): Promise<Block[] | undefined> {
    const key = (level: number, start: string) => `B\t${linkId}\t${level}\t${start}`;
    const out: Block[] = [];
    const missing = wanted.filter(({ level, start }) => {
      // Keyed `B\t…`: only blocks.
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
      // Each block by its level and start: the blocks of other levels that start on those days are not read.
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
}
