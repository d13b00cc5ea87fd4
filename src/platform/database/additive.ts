import { sql, type QueryExecutorProvider } from 'kysely';
import type { Dialect } from './database.js';
import { jsonRows, type Column } from './json-rows.js';

/**
 * Rows per statement. SQLite runs a statement on the event loop: after each, waiting redirects are
 * answered. PostgreSQL runs it elsewhere, and each statement costs a round trip.
 */
const CHUNK: Record<Dialect, number> = { sqlite: 500, postgres: 5000 };

/** SQLite runs statements on the event loop: between batches of them, waiting redirects are answered. */
export async function letOthersRun(dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Adds counts to a table: a new key is inserted, a known one raised (`n = n + excluded.n`), so writers
 * never read a row and never overwrite each other's. `rows` are the key columns, then the counters,
 * sorted by key: every writer takes its row locks in that order.
 */
export async function addCounts(
  db: QueryExecutorProvider,
  dialect: Dialect,
  table: string,
  keys: string[],
  counters: string[],
  rows: unknown[][],
): Promise<void> {
  const columns: Column[] = [...keys.map((k): Column => [k, 'text']), ...counters.map((c): Column => [c, 'bigint'])];
  const names = sql.join(columns.map(([name]) => sql.ref(name)));
  const raise = sql.join(counters.map((c) => sql`${sql.ref(c)} = ${sql.ref(`${table}.${c}`)} + excluded.${sql.ref(c)}`));
  for (let i = 0; i < rows.length; i += CHUNK[dialect]) {
    const chunk = jsonRows(dialect, rows.slice(i, i + CHUNK[dialect]), columns);
    // "where true": SQLite would read the ON of ON CONFLICT as a join constraint of the SELECT.
    await sql`insert into ${sql.table(table)} (${names}) select ${names} from ${chunk} as v where true
      on conflict (${sql.join(keys.map((k) => sql.ref(k)))}) do update set ${raise}`.execute(db);
    await letOthersRun(dialect);
  }
}

/**
 * PostgreSQL: locks the rows of `table` whose `column` is one of `values`, in that column's order, so
 * two transactions that update the same rows wait for each other instead of deadlocking. SQLite's one
 * writer at a time needs no row locks.
 */
export async function lockInOrder(db: QueryExecutorProvider, dialect: Dialect, table: string, column: string, values: string[]): Promise<void> {
  if (dialect !== 'postgres' || values.length === 0) return;
  const list = jsonRows(
    dialect,
    values.map((v) => [v]),
    [['v', 'text']],
  );
  await sql`select 1 from ${sql.table(table)} where ${sql.ref(column)} in (select v from ${list} as l) order by ${sql.ref(column)} for update`.execute(db);
}

/** Raises one counter column of existing rows, `column = column + n` per key; rows sorted by key. */
export async function raiseColumn(
  db: QueryExecutorProvider,
  dialect: Dialect,
  table: string,
  key: string,
  column: string,
  rows: [string, number][],
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK[dialect]) {
    const chunk = jsonRows(dialect, rows.slice(i, i + CHUNK[dialect]), [
      ['k', 'text'],
      ['n', 'bigint'],
    ]);
    await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${sql.ref(`${table}.${column}`)} + v.n from ${chunk} as v where ${sql.ref(`${table}.${key}`)} = v.k`.execute(
      db,
    );
    await letOthersRun(dialect);
  }
}
