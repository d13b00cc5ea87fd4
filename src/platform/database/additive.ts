import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type QueryExecutorProvider, type RawBuilder } from 'kysely';
import type { Dialect } from './database.js';
import { jsonRows } from './json-rows.js';

/**
 * Rows per statement. SQLite runs a statement on the event loop: after each, waiting redirects are
 * answered. PostgreSQL runs it elsewhere, and each statement costs a round trip.
 */
const CHUNK: Record<Dialect, number> = { sqlite: 500, postgres: 5000 };

/** SQLite runs statements on the event loop: between batches of them, waiting redirects are answered. */
export async function letOthersRun(dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') await nextTurn();
}

/**
 * PostgreSQL: locks the rows `select` finds (FOR UPDATE OF `of`, a table or alias of the select), in its
 * order, until the transaction ends, so that two transactions that update the same rows wait for each
 * other instead of deadlocking. SQLite's one writer at a time needs no row locks: there it runs nothing.
 */
export async function lockSelected(db: QueryExecutorProvider, dialect: Dialect, select: RawBuilder<unknown>, of: string): Promise<void> {
  if (dialect === 'postgres') await selectForUpdate(db, dialect, select, of);
}

/** The rows `select` finds, in its order, locked on PostgreSQL as lockSelected locks them. */
export async function selectForUpdate<R>(db: QueryExecutorProvider, dialect: Dialect, select: RawBuilder<R>, of: string): Promise<R[]> {
  return (await (dialect === 'postgres' ? sql<R>`${select} for update of ${sql.table(of)}` : select).execute(db)).rows;
}

/** lockSelected of the rows of `table` whose `column` is one of `values`, in that column's order. */
export async function lockInOrder(db: QueryExecutorProvider, dialect: Dialect, table: string, column: string, values: string[]): Promise<void> {
  if (dialect !== 'postgres' || values.length === 0) return;
  const list = jsonRows(
    dialect,
    values.map((v) => [v]),
    [['v', 'text']],
  );
  await lockSelected(
    db,
    dialect,
    sql`select 1 from ${sql.table(table)} where ${sql.ref(column)} in (select v from ${list} as l) order by ${sql.ref(column)}`,
    table,
  );
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

/**
 * PostgreSQL: takes the lock named `name` until the transaction ends, so that one transaction at a
 * time does the work it guards (an advisory lock), waiting for it or, without `wait`, answering false
 * when another holds it. SQLite's one writer at a time needs none.
 */
export async function holdNamedLock(tx: QueryExecutorProvider, dialect: Dialect, name: string, wait: boolean): Promise<boolean> {
  if (dialect !== 'postgres') return true;
  if (wait) {
    await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(tx);
    return true;
  }
  const { rows } = await sql<{ held: boolean }>`select pg_try_advisory_xact_lock(hashtext(${name})) as held`.execute(tx);
  return rows[0]!.held;
}

/**
 * `column + n`, capped at `limit` and never lowered. Every SET expression of an UPDATE sees the old
 * row, so `last_grant = capped - column` is what the statement granted: no read-modify-write (ADR 0049).
 */
export const capped = (column: string, n: number | RawBuilder<number>, limit: number) =>
  sql<number>`case when ${sql.ref(column)} >= ${limit} then ${sql.ref(column)} when ${sql.ref(column)} + ${n} > ${limit} then ${limit} else ${sql.ref(column)} + ${n} end`;
