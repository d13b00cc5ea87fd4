import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * Rollups keyed link, day, dimension, value (was link, dimension, value, day, plus an index by day):
 * a roll-up writes the rows of one link and day, which are now neighbours in one b-tree, where before
 * each value sat next to its own earlier days on another page (three times the cost per row at a
 * month of history, more with 0006's index, which this replaces: reads name their days). Spans get the
 * same order (link, span, start, dimension, value). Both carry count (SQLite: WITHOUT ROWID, the row is
 * the key; PostgreSQL: INCLUDE) so reads never visit the table.
 *
 * Spans are filled from the daily rows here, under the roll-up lock, and marked complete: from this
 * version on every roll-up writes them (store/rollup.ts). An instance of an earlier version must not
 * fold after this migration ran (stop them before starting this one): its roll-ups would leave spans
 * short.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  // Kysely runs PostgreSQL migrations in a transaction, SQLite ones not: a crash halfway through the
  // copy must not leave a table dropped.
  if (sqlite) await db.transaction().execute((tx) => migrate(tx, true));
  else await migrate(db, false);
}

async function migrate(db: Kysely<any>, sqlite: boolean): Promise<void> {
  // Concurrent roll-up passes lock this row first (rollup.ts): they wait until the copy is done.
  await sql`insert into analytics_state (name, value) values ('roll_up_lock', 0) on conflict (name) do update set value = 0`.execute(db);
  await rebuild(db, sqlite, 'visit_rollups', ['link_id', 'day', 'dimension', 'value'], [
    ['link_id', 'text'],
    ['day', 'text'],
    ['dimension', 'text'],
    ['value', 'text'],
    ['count', 'bigint'],
  ]);
  await rebuild(db, sqlite, 'visit_rollup_spans', ['link_id', 'span', 'start_day', 'dimension', 'value'], [
    ['link_id', 'text'],
    ['span', 'integer'],
    ['start_day', 'text'],
    ['dimension', 'text'],
    ['value', 'text'],
    ['count', 'bigint'],
  ]);
  // Days since 1970-01-01 rounded down to a multiple of the span: the same day as spanStart().
  const start = sqlite
    ? sql`date('1970-01-01', ((cast(julianday(day) - 2440587.5 as integer) / s.span) * s.span) || ' days')`
    : sql`to_char(date '1970-01-01' + ((day::date - date '1970-01-01') / s.span) * s.span, 'YYYY-MM-DD')`;
  const spans = sqlite ? sql`(select 7 as span union all select 28) as s` : sql`(values (7), (28)) as s(span)`;
  await sql`delete from visit_rollup_spans`.execute(db);
  await sql`insert into visit_rollup_spans (link_id, span, start_day, dimension, value, count)
    select link_id, s.span, ${start}, dimension, value, sum(count) from visit_rollups cross join ${spans}
    where dimension in ('country', 'device', 'referrer') group by link_id, s.span, ${start}, dimension, value`.execute(db);
  await sql`insert into analytics_state (name, value) values ('rollup_spans', 1) on conflict (name) do nothing`.execute(db);
}

async function rebuild(db: Kysely<any>, sqlite: boolean, table: string, key: string[], columns: [string, 'text' | 'integer' | 'bigint'][]): Promise<void> {
  const next = `${table}_next`;
  let create = db.schema.createTable(next);
  for (const [name, type] of columns) create = create.addColumn(name, type, (c) => c.notNull());
  if (sqlite) {
    await create.addPrimaryKeyConstraint(`${next}_pk`, key as never).modifyEnd(sql`without rowid`).execute();
  } else {
    await create.execute();
    await sql`alter table ${sql.table(next)} add constraint ${sql.id(`${next}_pk`)} primary key (${sql.join(key.map((k) => sql.ref(k)))}) include (count)`.execute(db);
  }
  const names = sql.join(columns.map(([name]) => sql.ref(name)));
  await sql`insert into ${sql.table(next)} (${names}) select ${names} from ${sql.table(table)}`.execute(db);
  await db.schema.dropTable(table).execute();
  await db.schema.alterTable(next).renameTo(table).execute();
  if (!sqlite) await sql`alter table ${sql.table(table)} rename constraint ${sql.id(`${next}_pk`)} to ${sql.id(`${table}_pk`)}`.execute(db);
}
