import { sql, SqliteAdapter, type Kysely } from 'kysely';

/** Rollup rows converted per query. */
const BATCH = 500;

type StoredCounts = Record<string, (string | number)[]>;
type Columns = { s: number; q: number; s_bot: number; q_bot: number };

/**
 * Visits are kept as counts per link, UTC day, dimension and value, each split four ways: through
 * /s/ or /q/, by people or by bots (docs/adr/0042). A flush adds to them (`n = n + excluded.n`), so
 * rows of several instances need no writer of their own. The time of day is the dimension `time`
 * (UTC quarter hours, `HH:MM`). Unique visitors are sketches per link, day, source and class.
 *
 * The rollup rows of before (one JSON object per link, day and writer) are added into the counts:
 * every total is kept. They knew neither the time of day (their visits count at 00:00 UTC), the
 * operating system, nor which of a value's visits came through /q/ or from bots: values are split
 * between /s/ and /q/ as the day was, bots are the device class `bot` and the day's `bot` count.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  let counts = db.schema
    .createTable('visit_counts')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('s', 'bigint', (c) => c.notNull())
    .addColumn('q', 'bigint', (c) => c.notNull())
    .addColumn('s_bot', 'bigint', (c) => c.notNull())
    .addColumn('q_bot', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('visit_counts_pk', ['link_id', 'day', 'dimension', 'value']);
  // Rows of a few dozen bytes: SQLite keeps them in the key's own b-tree.
  if (sqlite) counts = counts.modifyEnd(sql`without rowid`);
  await counts.execute();
  await db.schema
    .createTable('visit_visitors')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('bot', 'integer', (c) => c.notNull())
    .addColumn('sketch', sqlite ? 'blob' : 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('visit_visitors_pk', ['link_id', 'day', 'source', 'bot'])
    .execute();
  // Bot visits recorded per UTC day, against their own ceiling.
  await db.schema
    .alterTable('visit_days')
    .addColumn('bots', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await convertRollups(db);
  await db.schema.dropTable('visit_rollups').execute();
}

async function convertRollups(db: Kysely<any>): Promise<void> {
  let after: [string, string, string] | undefined;
  for (;;) {
    type Rollup = { link_id: string; day: string; writer: string; s: number; q: number; counts: string };
    const rows = (await db
      .selectFrom('visit_rollups')
      .selectAll()
      .$if(after !== undefined, (q) => q.where((eb) => eb(eb.refTuple('link_id', 'day', 'writer'), '>', eb.tuple(...after!))))
      .orderBy('link_id')
      .orderBy('day')
      .orderBy('writer')
      .limit(BATCH)
      .execute()) as Rollup[];
    for (const row of rows) await addCounts(db, row.link_id, row.day, rowCounts(Number(row.s), Number(row.q), JSON.parse(row.counts) as StoredCounts));
    if (rows.length < BATCH) return;
    const last = rows[rows.length - 1]!;
    after = [last.link_id, last.day, last.writer];
  }
}

/** One rollup row as count rows: [dimension, value, columns]. */
function rowCounts(s: number, q: number, stored: StoredCounts): [string, string, Columns][] {
  const pairs = (dimension: string) => {
    const list = stored[dimension] ?? [];
    return Array.from({ length: list.length / 2 }, (_, i) => [String(list[2 * i]), Number(list[2 * i + 1])] as const);
  };
  const bots = pairs('bot').find(([value]) => value === 'yes')?.[1] ?? 0;
  const sBot = Math.min(bots, s);
  const rows: [string, string, Columns][] = [['time', '00:00', { s: s - sBot, q: q - (bots - sBot), s_bot: sBot, q_bot: bots - sBot }]];
  const share = s + q === 0 ? 1 : s / (s + q);
  for (const dimension of ['country', 'device', 'browser', 'referrer']) {
    for (const [value, n] of pairs(dimension)) {
      const onS = Math.round(n * share);
      const bot = dimension === 'device' && value === 'bot';
      rows.push([dimension, value, bot ? { s: 0, q: 0, s_bot: onS, q_bot: n - onS } : { s: onS, q: n - onS, s_bot: 0, q_bot: 0 }]);
    }
  }
  return rows;
}

async function addCounts(db: Kysely<any>, linkId: string, day: string, rows: [string, string, Columns][]): Promise<void> {
  await db
    .insertInto('visit_counts')
    .values(rows.map(([dimension, value, c]) => ({ link_id: linkId, day, dimension, value, ...c })))
    .onConflict((oc) =>
      oc.columns(['link_id', 'day', 'dimension', 'value']).doUpdateSet({
        s: sql`visit_counts.s + excluded.s`,
        q: sql`visit_counts.q + excluded.q`,
        s_bot: sql`visit_counts.s_bot + excluded.s_bot`,
        q_bot: sql`visit_counts.q_bot + excluded.q_bot`,
      }),
    )
    .execute();
}
