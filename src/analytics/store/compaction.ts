import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool, type Transaction } from 'kysely';
import type { Dialect } from '../../platform/database/database.js';
import { holdNamedLock, letOthersRun } from '../../platform/database/additive.js';
import type { DB } from '../../platform/database/schema.js';
import { HOUR_MS, utcDay } from '../../platform/time.js';
import { addUp, COMPACTED, DayTotals, dayNumber, dayOfNumber, DIMENSIONS, LEVELS, parseBreakdowns, type FlatCounts } from '../counts.js';

type Tx = Transaction<DB>;

/** A day closes once every running instance has flushed this long past its end: the instances' clocks may differ by that much. */
const CLOSING_MS = HOUR_MS;
/** Link-days per transaction: SQLite's writer, and so the flushes, wait for at most this many. */
const LINK_DAYS_PER_TRANSACTION = 50;
/** Rows per transaction past the first link-day, taken whatever its rows: rows pile up when compaction lags or instances keep restarting. */
const ROWS_PER_TRANSACTION = 100;

/**
 * Rows compaction may add in: closed days', and those of writers no running instance lists, which never write again (recording-store.ts, checkIn).
 * A NULL writer (an instance from before that list) makes `not in` unknown for every row, so the second kind waits until it is gone.
 * Each kind is asked alone, as a range of the partial index visit_tallies_open (only a literal matches it): both at once make SQLite scan the table.
 */
const finished = (closed: string, open: boolean) => (eb: ExpressionBuilder<DB, 'visit_tallies'>) =>
  eb.and([
    eb('writer', '<>', sql.lit(COMPACTED)),
    open ? eb.and([eb('day', '>=', closed), eb('writer', 'not in', eb.selectFrom('recorder_instances').select('writer'))]) : eb('day', '<', closed),
  ]);

/** Compacts the next finished rows into their days' one row and builds the blocks over them (ADR 0042); returns the link-days compacted. */
export async function compactSome(db: Kysely<DB>, dialect: Dialect, wait = false): Promise<number> {
  return db.transaction().execute(async (tx) => {
    // Skip while another instance compacts: this instance's flushes must not queue behind it.
    if (!(await holdNamedLock(tx, dialect, 'visit compaction', wait))) return 0;
    const running = await tx
      .selectFrom('recorder_instances')
      .select((eb) => eb.fn.min<number>('flushed_to').as('at'))
      .executeTakeFirst();
    if (running?.at === null || running?.at === undefined) return 0;
    const closed = utcDay(Number(running.at) - CLOSING_MS);
    // Closed days first, then finished writers' rows of open days.
    const ofClosedDays = await linkDaysOf(tx, finished(closed, false));
    const open = ofClosedDays.length === 0;
    const found = open ? await linkDaysOf(tx, finished(closed, true)) : ofClosedDays;
    if (found.length === 0) return 0;
    const taken = [found[0]!];
    let rows = Number(found[0]!.rows);
    for (const linkDay of found.slice(1)) {
      rows += Number(linkDay.rows);
      if (rows > ROWS_PER_TRANSACTION) break;
      taken.push(linkDay);
    }
    const compacted = await compactDays(tx, dialect, taken, finished(closed, open));
    if (compacted.size === 0) return 0;
    const blocks = await LinkBlocks.around(tx, dialect, dayNumber(closed), compacted);
    for (const [link_id, days] of compacted)
      for (const day of days.keys()) {
        for (let level = 1; level <= LEVELS; level++) {
          const size = 2 ** level;
          const start = dayNumber(day) - (dayNumber(day) % size);
          // The block before too: one whose last days had no visits is built when a later day is compacted.
          await blocks.get(link_id)!.sum(level, start - size);
          await blocks.get(link_id)!.sum(level, start);
        }
        await letOthersRun(dialect);
      }
    return [...compacted.values()].reduce((n, days) => n + days.size, 0);
  });
}

function linkDaysOf(tx: Tx, which: ReturnType<typeof finished>) {
  return tx
    .selectFrom('visit_tallies')
    .select((eb) => ['link_id', 'day', eb.fn.countAll<number | string>().as('rows')])
    .where(which)
    .groupBy(['day', 'link_id'])
    .orderBy('day')
    .orderBy('link_id')
    .limit(LINK_DAYS_PER_TRANSACTION)
    .execute();
}

export const keyOf = (linkId: string, day: string) => `${linkId}\t${day}`;

/** Blocks with counts: an emptied block (counts null) waits to be built again. */
export function storedBlocks(db: Kysely<DB>, linkIds: readonly string[], from: string, to: string) {
  return db
    .selectFrom('visit_sums')
    .where('link_id', 'in', linkIds)
    .where('level', '>=', 1)
    .where('start', '>=', from)
    .where('start', '<=', to)
    .where('counts', 'is not', null);
}

/** Adds each link-day's rows into one compacted row and its summary and empties the blocks over it, in a few statements for all of them. */
async function compactDays(
  tx: Tx,
  dialect: Dialect,
  linkDays: { link_id: string; day: string }[],
  which: ReturnType<typeof finished>,
): Promise<Map<string, Map<string, FlatCounts[]>>> {
  const each =
    <T>(list: T[], where: (eb: ExpressionBuilder<DB, 'visit_tallies' | 'visit_sums'>, item: T) => Expression<SqlBool>) =>
    (eb: ExpressionBuilder<DB, 'visit_tallies' | 'visit_sums'>) =>
      eb.or(list.map((item) => where(eb, item)));
  const ofLinkDays = each(linkDays, (eb, { link_id, day }) => eb.and([eb('link_id', '=', link_id), eb('day', '=', day)]));
  // Add up the rows the delete returns: a row another instance commits meanwhile stays for next time.
  const columns = ['link_id', 'day', 'writer', 'version', 'counts', 'visitors'] as const;
  const deleted = await tx.deleteFrom('visit_tallies').where(which).where(ofLinkDays).returning(columns).execute();
  const read = [...deleted, ...(await tx.selectFrom('visit_tallies').select(columns).where('writer', '=', COMPACTED).where(ofLinkDays).execute())];
  // A link-day whose rows the delete did not take (an instance listing no writer started meanwhile) is left as it is.
  const taken = new Set(deleted.map((row) => keyOf(row.link_id, row.day)));
  const rowsOf = new Map<string, typeof read>();
  for (const row of read) rowsOf.set(keyOf(row.link_id, row.day), [...(rowsOf.get(keyOf(row.link_id, row.day)) ?? []), row]);
  const tallies = [];
  const summaries = [];
  const out = new Map<string, Map<string, FlatCounts[]>>();
  for (const { link_id, day } of linkDays) {
    if (!taken.has(keyOf(link_id, day))) continue;
    const rows = rowsOf.get(keyOf(link_id, day))!;
    const version = 1 + Math.max(0, ...rows.filter((row) => row.writer === COMPACTED).map((row) => Number(row.version)));
    const { counts, visitors, summary } = new DayTotals(day, rows).compacted();
    tallies.push({ link_id, day, writer: COMPACTED, version, counts, visitors });
    summaries.push({ link_id, level: 0, start: day, version, summary, counts: null });
    if (!out.has(link_id)) out.set(link_id, new Map());
    out.get(link_id)!.set(day, parseBreakdowns(counts));
    await letOthersRun(dialect);
  }
  if (tallies.length === 0) return out;
  await tx
    .insertInto('visit_tallies')
    .values(tallies)
    .onConflict((oc) =>
      oc
        .columns(['link_id', 'day', 'writer'])
        .doUpdateSet((eb) => ({ version: eb.ref('excluded.version'), counts: eb.ref('excluded.counts'), visitors: eb.ref('excluded.visitors') })),
    )
    .execute();
  await tx
    .insertInto('visit_sums')
    .values(summaries)
    .onConflict((oc) =>
      oc.columns(['link_id', 'level', 'start']).doUpdateSet((eb) => ({ version: eb.ref('excluded.version'), summary: eb.ref('excluded.summary') })),
    )
    .execute();
  // The blocks over these days lack these rows (a day compacted again, or empty when the block was built).
  const over = [...out].flatMap(([link_id, days]) =>
    [...days.keys()].flatMap((day) =>
      Array.from({ length: LEVELS }, (_, i) => ({ link_id, level: i + 1, start: dayOfNumber(dayNumber(day) - (dayNumber(day) % 2 ** (i + 1))) })),
    ),
  );
  await tx
    .updateTable('visit_sums')
    .set({ counts: null, version: sql<number>`version + 1` })
    .where('counts', 'is not', null)
    .where(each(over, (eb, { link_id, level, start }) => eb.and([eb('link_id', '=', link_id), eb('level', '=', level), eb('start', '=', start)])))
    .execute();
  return out;
}

/** A span without visits; null instead means it cannot be added up yet. */
const EMPTY = 'empty';

/**
 * Builds one link's blocks from their halves once all their days are closed and compacted; spans without visits get no block.
 * Which days have rows and which blocks exist is read once, counts only as needed.
 */
class LinkBlocks {
  private readonly known = new Map<string, FlatCounts[] | typeof EMPTY | null>();
  /** Per day with rows near those compacted (days since 1970): whether its compacted row alone holds it. */
  private readonly days = new Map<number, boolean>();
  private readonly stored = new Set<string>();

  private constructor(
    private readonly tx: Tx,
    private readonly dialect: Dialect,
    private readonly linkId: string,
    /** The first day not closed, in days since 1970. */
    private readonly open: number,
  ) {}

  /** Per link: the blocks over its compacted days (breakdowns given) and the blocks before them at each level. */
  static async around(tx: Tx, dialect: Dialect, open: number, links: Map<string, Map<string, FlatCounts[]>>): Promise<Map<string, LinkBlocks>> {
    const numbers = [...links.values()].flatMap((days) => [...days.keys()].map(dayNumber));
    const size = 2 ** LEVELS;
    const [from, to] = [dayOfNumber(Math.min(...numbers) - (Math.min(...numbers) % size) - size), dayOfNumber(Math.max(...numbers) + size)];
    const ids = [...links.keys()];
    const [rows, stored] = await Promise.all([
      tx.selectFrom('visit_tallies').select(['link_id', 'day', 'writer']).where('link_id', 'in', ids).where('day', '>=', from).where('day', '<=', to).execute(),
      storedBlocks(tx, ids, from, to).select(['link_id', 'level', 'start', 'version']).execute(),
    ]);
    const blocks = new Map(ids.map((id) => [id, new LinkBlocks(tx, dialect, id, open)]));
    for (const row of rows) {
      const { days } = blocks.get(row.link_id)!;
      days.set(dayNumber(row.day), (days.get(dayNumber(row.day)) ?? true) && row.writer === COMPACTED);
    }
    for (const block of stored) blocks.get(block.link_id)!.stored.add(`${block.level}:${dayNumber(block.start)}`);
    for (const [id, days] of links) for (const [day, counts] of days) blocks.get(id)!.known.set(`0:${dayNumber(day)}`, counts);
    return blocks;
  }

  /** Breakdowns of the 2^level days from `start` (days since 1970); null while a day of them is not closed or not compacted. */
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

  /** When one half has no visits, the other stands for the block and nothing is stored. */
  private async build(level: number, start: number): Promise<FlatCounts[] | typeof EMPTY | null> {
    const half = 2 ** (level - 1);
    const [a, b] = [await this.sum(level - 1, start), await this.sum(level - 1, start + half)];
    if (a === null || b === null) return null;
    if (a === EMPTY || b === EMPTY) return a === EMPTY ? b : a;
    const counts = a.map((list, d) => addUp([list, b[d]!]));
    const json = JSON.stringify(Object.fromEntries(DIMENSIONS.flatMap((dimension, d) => (d === 0 ? [] : [[dimension, counts[d]]]))));
    await this.tx
      .insertInto('visit_sums')
      .values({ link_id: this.linkId, level, start: dayOfNumber(start), version: 1, summary: null, counts: json })
      .onConflict((oc) => oc.columns(['link_id', 'level', 'start']).doUpdateSet({ counts: json, version: sql<number>`visit_sums.version + 1` }))
      .execute();
    await letOthersRun(this.dialect);
    return counts;
  }
}
