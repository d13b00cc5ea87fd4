import { sql, SqliteAdapter, type Kysely } from 'kysely';

/** Rows read per query while converting. */
const BATCH = 5000;
/** The writer of the converted rows. */
const MIGRATED = 'migrated';

type CountRow = { link_id: string; day: string; dimension: string; value: string; s: number; q: number; s_bot: number; q_bot: number };
type VisitorRow = { link_id: string; day: string; source: string; bot: number; sketch: Uint8Array };

/**
 * A link's day is one row per writer (docs/adr/0042): its counts as JSON, per dimension a flat list
 * `[value, s, q, s_bot, q_bot, …]`, and its four unique-visitor sketches packed in one value (each
 * after its length in two bytes, in the column order /s/, /q/, bots through /s/, bots through /q/).
 * An instance rewrites its own rows whole on each flush and never reads them; reads add writers up.
 *
 * The counts and sketches of before (a row per link, day, dimension and value; a sketch per link,
 * day, source and class) become one row per link and day of the writer `migrated`: every count and
 * every sketch is kept as it was.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('visit_tallies')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('writer', 'text', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('visitors', sqlite ? 'blob' : 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('visit_tallies_pk', ['link_id', 'day', 'writer'])
    .execute();
  await convertCounts(db);
  await convertVisitors(db);
  await db.schema.dropTable('visit_counts').execute();
  await db.schema.dropTable('visit_visitors').execute();
}

/** Reads `table` in key order, BATCH rows at a time, and hands over each link and day's rows whole. */
async function eachLinkDay<R extends { link_id: string; day: string }>(db: Kysely<any>, table: string, keys: string[], write: (rows: R[]) => Promise<void>) {
  let after: unknown[] | undefined;
  let group: R[] = [];
  for (;;) {
    let query = db.selectFrom(table).selectAll();
    if (after !== undefined) query = query.where((eb) => eb(eb.refTuple(...(keys as [string, string])), '>', eb.tuple(...(after as [unknown, unknown]))));
    for (const key of keys) query = query.orderBy(key);
    const rows = (await query.limit(BATCH).execute()) as R[];
    for (const row of rows) {
      if (group.length > 0 && (group[0]!.link_id !== row.link_id || group[0]!.day !== row.day)) {
        await write(group);
        group = [];
      }
      group.push(row);
    }
    if (rows.length < BATCH) break;
    after = keys.map((key) => (rows.at(-1) as Record<string, unknown>)[key]);
  }
  if (group.length > 0) await write(group);
}

async function convertCounts(db: Kysely<any>): Promise<void> {
  await eachLinkDay<CountRow>(db, 'visit_counts', ['link_id', 'day', 'dimension', 'value'], async (rows) => {
    const counts: Record<string, (string | number)[]> = {};
    for (const r of rows) (counts[r.dimension] ??= []).push(r.value, Number(r.s), Number(r.q), Number(r.s_bot), Number(r.q_bot));
    await db
      .insertInto('visit_tallies')
      .values({ link_id: rows[0]!.link_id, day: rows[0]!.day, writer: MIGRATED, counts: JSON.stringify(counts), visitors: pack([]) })
      .execute();
  });
}

async function convertVisitors(db: Kysely<any>): Promise<void> {
  await eachLinkDay<VisitorRow>(db, 'visit_visitors', ['link_id', 'day', 'source', 'bot'], async (rows) => {
    const sketches: Uint8Array[] = [];
    for (const r of rows) sketches[(r.source === 'q' ? 1 : 0) + (Number(r.bot) === 1 ? 2 : 0)] = new Uint8Array(r.sketch);
    await db
      .insertInto('visit_tallies')
      .values({ link_id: rows[0]!.link_id, day: rows[0]!.day, writer: MIGRATED, counts: '{}', visitors: pack(sketches) })
      .onConflict((oc) => oc.columns(['link_id', 'day', 'writer']).doUpdateSet({ visitors: sql`excluded.visitors` }))
      .execute();
  });
}

/** The four sketches in one value, each after its length in two bytes (an absent one is empty). */
function pack(sketches: (Uint8Array | undefined)[]): Uint8Array {
  const four = [0, 1, 2, 3].map((i) => sketches[i] ?? new Uint8Array(0));
  const out = new Uint8Array(four.reduce((n, s) => n + 2 + s.length, 0));
  let at = 0;
  for (const sketch of four) {
    out.set([sketch.length >> 8, sketch.length & 255], at);
    out.set(sketch, at + 2);
    at += 2 + sketch.length;
  }
  return out;
}
