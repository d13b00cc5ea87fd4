import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from '../../platform/database/database.js';
import { holdNamedLock, letOthersRun } from '../../platform/database/additive.js';
import type { DB } from '../../platform/database/schema.js';
import { HOUR_MS, utcDay } from '../../platform/time.js';
import { addFlat, COMPACTED, DayTotals, dayNumber, dayOfNumber, DIMENSIONS, LEVELS, parseBreakdowns, type FlatCounts } from '../counts.js';

type Tx = Transaction<DB>;

/** How long after the end of a day every running instance must have flushed before the day is closed: clocks of instances may differ by that. */
const CLOSING_MS = HOUR_MS;
/** Link-days compacted per transaction: SQLite's writer (and so the flushes) waits for at most that many. */
const LINK_DAYS_PER_TRANSACTION = 50;

/**
 * Compaction of closed days (docs/adr/0042). A UTC day is closed once every running instance has
 * flushed an hour past its end: none holds a visit of it any more or will receive one, so no writer
 * writes its row of the day again. A link's closed day then becomes one row (writer COMPACTED), all
 * its rows added up, with its summary (visit_sums level 0: quarter hours and unique visitors); and
 * blocks of 2^n closed days (levels 1 to LEVELS) hold their breakdowns added up, built from their halves.
 * A read of a 90-day window thus parses a few blocks and ninety small summaries instead of ninety
 * days of counts and sketches. One transaction compacts at a time (a named lock); rows that appear for
 * a day already compacted (an instance that was taken for dead and came back) are added to it the
 * next time round, and the blocks over it emptied and built again. Returns the link-days compacted.
 */
export async function compactSome(db: Kysely<DB>, dialect: Dialect): Promise<number> {
  return db.transaction().execute(async (tx) => {
    await holdNamedLock(tx, dialect, 'visit compaction');
    const running = await tx
      .selectFrom('recorder_instances')
      .select((eb) => eb.fn.min<number>('flushed_to').as('at'))
      .executeTakeFirst();
    if (running?.at === null || running?.at === undefined) return 0;
    const closed = utcDay(Number(running.at) - CLOSING_MS);
    // Matches the partial index visit_tallies_open, which holds only rows not yet compacted (a literal, not a parameter).
    const open = await tx
      .selectFrom('visit_tallies')
      .select(['link_id', 'day'])
      .distinct()
      .where('day', '<', closed)
      .where('writer', '<>', sql.lit(COMPACTED))
      .orderBy('day')
      .orderBy('link_id')
      .limit(LINK_DAYS_PER_TRANSACTION)
      .execute();
    const byLink = new Map<string, string[]>();
    for (const { link_id, day } of open) byLink.set(link_id, [...(byLink.get(link_id) ?? []), day]);
    for (const [linkId, days] of byLink) {
      const compacted = new Map<string, FlatCounts[]>();
      for (const day of days) {
        compacted.set(day, await compactDay(tx, linkId, day));
        await letOthersRun(dialect);
      }
      const blocks = await LinkBlocks.around(tx, linkId, dayNumber(closed), compacted);
      for (const day of days) {
        for (let level = 1; level <= LEVELS; level++) {
          const size = 2 ** level;
          const start = dayNumber(day) - (dayNumber(day) % size);
          // The block before too: one whose last days had no visits is built when a later day is compacted.
          await blocks.sum(level, start - size);
          await blocks.sum(level, start);
        }
      }
      await letOthersRun(dialect);
    }
    return open.length;
  });
}

/** A link's day as one compacted row with its summary; the blocks over it emptied. Returns the day's breakdowns. */
async function compactDay(tx: Tx, linkId: string, day: string): Promise<FlatCounts[]> {
  const rows = await tx
    .selectFrom('visit_tallies')
    .select(['writer', 'version', 'counts', 'visitors'])
    .where('link_id', '=', linkId)
    .where('day', '=', day)
    .execute();
  const version = 1 + Math.max(0, ...rows.filter((row) => row.writer === COMPACTED).map((row) => Number(row.version)));
  const { counts, visitors, summary } = new DayTotals(day, rows).compacted();
  await tx.deleteFrom('visit_tallies').where('link_id', '=', linkId).where('day', '=', day).where('writer', '<>', COMPACTED).execute();
  await tx
    .insertInto('visit_tallies')
    .values({ link_id: linkId, day, writer: COMPACTED, version, counts, visitors })
    .onConflict((oc) => oc.columns(['link_id', 'day', 'writer']).doUpdateSet({ version, counts, visitors }))
    .execute();
  await tx
    .insertInto('visit_sums')
    .values({ link_id: linkId, level: 0, start: day, version, summary, counts: null })
    .onConflict((oc) => oc.columns(['link_id', 'level', 'start']).doUpdateSet({ version, summary }))
    .execute();
  // Blocks over the day added it up without these rows (a day compacted again, or empty when they were built).
  for (let level = 1; level <= LEVELS; level++)
    await tx
      .updateTable('visit_sums')
      .set({ counts: null, version: sql<number>`version + 1` })
      .where('link_id', '=', linkId)
      .where('level', '=', level)
      .where('start', '=', dayOfNumber(dayNumber(day) - (dayNumber(day) % 2 ** level)))
      .where('counts', 'is not', null)
      .execute();
  return parseBreakdowns(counts);
}

/** Nothing to add up: no visits in the span. */
const EMPTY = 'empty';

/**
 * The blocks of one link's closed days, each its halves' breakdowns added up: a missing block is built
 * when both halves are known (a half of one day: that day's compacted row), and left missing while a
 * day of it is not compacted yet or not closed. Spans without visits hold no block. Which days have
 * rows, and which blocks exist, is read once for the days around those compacted; counts only as needed.
 */
class LinkBlocks {
  private readonly known = new Map<string, FlatCounts[] | typeof EMPTY | null>();
  /** Per day (days since 1970) with rows around those compacted: whether only its compacted row holds it. */
  private readonly days = new Map<number, boolean>();
  private readonly stored = new Set<string>();

  private constructor(
    private readonly tx: Tx,
    private readonly linkId: string,
    /** The first day (days since 1970) that is not closed. */
    private readonly open: number,
  ) {}

  /** The blocks that may hold `days` (compacted, their breakdowns given), and those before them at each level. */
  static async around(tx: Tx, linkId: string, open: number, days: Map<string, FlatCounts[]>): Promise<LinkBlocks> {
    const blocks = new LinkBlocks(tx, linkId, open);
    const numbers = [...days.keys()].map(dayNumber);
    const size = 2 ** LEVELS;
    const [from, to] = [dayOfNumber(Math.min(...numbers) - (Math.min(...numbers) % size) - size), dayOfNumber(Math.max(...numbers) + size)];
    const [rows, stored] = await Promise.all([
      tx.selectFrom('visit_tallies').select(['day', 'writer']).where('link_id', '=', linkId).where('day', '>=', from).where('day', '<=', to).execute(),
      tx
        .selectFrom('visit_sums')
        .select(['level', 'start'])
        .where('link_id', '=', linkId)
        .where('level', '>=', 1)
        .where('start', '>=', from)
        .where('start', '<=', to)
        .where('counts', 'is not', null)
        .execute(),
    ]);
    for (const row of rows) blocks.days.set(dayNumber(row.day), (blocks.days.get(dayNumber(row.day)) ?? true) && row.writer === COMPACTED);
    for (const block of stored) blocks.stored.add(`${block.level}:${dayNumber(block.start)}`);
    for (const [day, counts] of days) blocks.known.set(`0:${dayNumber(day)}`, counts);
    return blocks;
  }

  /** The breakdowns of the 2^level days from `start` (days since 1970); null when they cannot be added up yet. */
  async sum(level: number, start: number): Promise<FlatCounts[] | typeof EMPTY | null> {
    const key = `${level}:${start}`;
    const size = 2 ** level;
    if (start + size > this.open) return null;
    if (!this.known.has(key)) {
      const inSpan = [...this.days].filter(([day]) => day >= start && day < start + size);
      if (inSpan.length === 0) this.known.set(key, EMPTY);
      else if (inSpan.some(([, compacted]) => !compacted)) this.known.set(key, null);
      else
        this.known.set(
          key,
          level === 0
            ? await this.read('visit_tallies', start)
            : this.stored.has(key)
              ? await this.read('visit_sums', start, level)
              : await this.build(level, start),
        );
    }
    return this.known.get(key)!;
  }

  /** A compacted day's breakdowns, or a stored block's. */
  private async read(table: 'visit_tallies' | 'visit_sums', start: number, level = 0): Promise<FlatCounts[]> {
    const { counts } =
      table === 'visit_tallies'
        ? await this.tx
            .selectFrom('visit_tallies')
            .select('counts')
            .where('link_id', '=', this.linkId)
            .where('day', '=', dayOfNumber(start))
            .where('writer', '=', COMPACTED)
            .executeTakeFirstOrThrow()
        : await this.tx
            .selectFrom('visit_sums')
            .select('counts')
            .where('link_id', '=', this.linkId)
            .where('level', '=', level)
            .where('start', '=', dayOfNumber(start))
            .executeTakeFirstOrThrow();
    return parseBreakdowns(counts!);
  }

  /** A block from its halves, stored; the half with visits when the other has none. */
  private async build(level: number, start: number): Promise<FlatCounts[] | typeof EMPTY | null> {
    const half = 2 ** (level - 1);
    const [a, b] = [await this.sum(level - 1, start), await this.sum(level - 1, start + half)];
    if (a === null || b === null) return null;
    if (a === EMPTY || b === EMPTY) return a === EMPTY ? b : a;
    const counts = a.map((list, d) => addFlat(list, b[d]!));
    const json = JSON.stringify(Object.fromEntries(DIMENSIONS.flatMap((dimension, d) => (d === 0 ? [] : [[dimension, counts[d]]]))));
    await this.tx
      .insertInto('visit_sums')
      .values({ link_id: this.linkId, level, start: dayOfNumber(start), version: 1, summary: null, counts: json })
      .onConflict((oc) => oc.columns(['link_id', 'level', 'start']).doUpdateSet({ counts: json, version: sql<number>`visit_sums.version + 1` }))
      .execute();
    return counts;
  }
}
