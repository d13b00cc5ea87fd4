import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * One rollup row per link and day (was one per link, day, dimension and value), the counts of all
 * dimensions in one JSON text, with the day's /s/ and /q/ visits beside it; one span row per link and
 * span likewise (docs/decisions.md, "Rollup rows"). A roll-up wrote about 30 rows per busy link and
 * day at every pass, and a stats read fetched a row per value of each day or span it sums; now one.
 *
 * Stop instances of earlier versions before starting this one: their roll-up passes fail on the new
 * tables (each rolls back and leaves its journal rows for this version to fold, so nothing is lost or
 * counted twice) and keep failing until they are stopped.
 *
 * SQLite: ordinary (rowid) tables. A row now holds hundreds of bytes to a few kilobytes, which a
 * WITHOUT ROWID table would move to overflow pages past about a kilobyte; a rowid table keeps up to
 * a page in the row.
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
  // {"dimension": {"value": count, …}, …}: an object per dimension, then one of them per row.
  const object = (key: string, value: string, nested: boolean) =>
    sqlite
      ? sql`json_group_object(${sql.ref(key)}, ${nested ? sql`json(${sql.ref(value)})` : sql.ref(value)})`
      : sql`json_object_agg(${sql.ref(key)}, ${sql.ref(value)})`;
  const text = (json: ReturnType<typeof object>) => (sqlite ? json : sql`${json}::text`);
  const visits = (source: string) => sql`sum(case when dimension = 'source' and value = ${sql.lit(source)} then count else 0 end)`;

  await sql`create table visit_rollups_next (link_id text not null, day text not null, s bigint not null, q bigint not null,
    counts text not null, primary key (link_id, day))`.execute(db);
  await sql`insert into visit_rollups_next (link_id, day, s, q, counts)
    select link_id, day, sum(s), sum(q), ${text(object('dimension', 'vals', true))}
    from (select link_id, day, dimension, ${object('value', 'count', false)} as vals, ${visits('s')} as s, ${visits('q')} as q
          from visit_rollups group by link_id, day, dimension) as d
    group by link_id, day`.execute(db);
  await replace(db, sqlite, 'visit_rollups');

  await sql`create table visit_rollup_spans_next (link_id text not null, span integer not null, start_day text not null,
    counts text not null, primary key (link_id, span, start_day))`.execute(db);
  await sql`insert into visit_rollup_spans_next (link_id, span, start_day, counts)
    select link_id, span, start_day, ${text(object('dimension', 'vals', true))}
    from (select link_id, span, start_day, dimension, ${object('value', 'count', false)} as vals
          from visit_rollup_spans group by link_id, span, start_day, dimension) as d
    group by link_id, span, start_day`.execute(db);
  await replace(db, sqlite, 'visit_rollup_spans');
}

async function replace(db: Kysely<any>, sqlite: boolean, table: string): Promise<void> {
  const next = `${table}_next`;
  await db.schema.dropTable(table).execute();
  await db.schema.alterTable(next).renameTo(table).execute();
  if (!sqlite) await sql`alter table ${sql.table(table)} rename constraint ${sql.id(`${next}_pkey`)} to ${sql.id(`${table}_pkey`)}`.execute(db);
}
