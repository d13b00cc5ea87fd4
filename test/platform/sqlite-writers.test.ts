import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../src/platform/database/database.js';
import { isUnavailable } from '../../src/platform/database/sql-errors.js';

// Another connection writes the same SQLite file (the admin CLI beside the server); here a plain second
// connection plays that writer.
let dir: string;
let database: Database;
let other: SqliteDatabase.Database;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-writers-'));
  const file = path.join(dir, 'db.sqlite');
  database = await openDatabase(`sqlite:${file}`);
  await sql`create table counter (id integer primary key, n integer not null)`.execute(database.db);
  await sql`insert into counter (id, n) values (1, 0)`.execute(database.db);
  other = new SqliteDatabase(file);
});
after(async () => {
  other.close();
  await database.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Event-loop turns counted while `work` runs: a thread asleep in SQLite's busy handler counts none. */
async function turnsDuring(work: Promise<unknown>): Promise<number> {
  let turns = 0;
  const timer = setInterval(() => turns++, 5);
  try {
    await work;
  } finally {
    clearInterval(timer);
  }
  return turns;
}

test('a write waits for another connection’s write lock without holding up the event loop', async () => {
  other.exec('begin immediate');
  const write = sql`update counter set n = n + 1 where id = 1`.execute(database.db);
  setTimeout(() => other.exec('commit'), 200);
  const turns = await turnsDuring(write);
  assert.ok(turns >= 10, `the event loop turned ${turns} times while the write waited`);
  const { rows } = await sql<{ n: number }>`select n from counter where id = 1`.execute(database.db);
  assert.equal(rows[0]!.n, 1);
});

test('a transaction that reads before it writes is not refused when another connection commits in between', async () => {
  // A deferred transaction would read a snapshot, then fail to write with SQLITE_BUSY_SNAPSHOT.
  await database.db.transaction().execute(async (tx) => {
    const { rows } = await sql<{ n: number }>`select n from counter where id = 1`.execute(tx);
    setTimeout(() => {
      try {
        other.exec('update counter set n = n + 100 where id = 1');
      } catch {
        // Refused while this transaction holds the write lock: what BEGIN IMMEDIATE is for.
      }
    }, 0);
    await sleep(20);
    await sql`update counter set n = ${rows[0]!.n + 1} where id = 1`.execute(tx);
  });
  const { rows } = await sql<{ n: number }>`select n from counter where id = 1`.execute(database.db);
  assert.equal(rows[0]!.n, 2);
});

test('a transaction waits for the write lock before it starts, and gives up after the wait limit as unavailable', async () => {
  other.exec('begin immediate');
  try {
    const started = Date.now();
    const error = await database.db
      .transaction()
      .execute((tx) => sql`update counter set n = n + 1 where id = 1`.execute(tx))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(Date.now() - started >= 4900, `gave up after ${Date.now() - started} ms`);
    assert.ok(isUnavailable(error), `not an unavailable error: ${String(error)}`);
  } finally {
    other.exec('rollback');
  }
  const { rows } = await sql<{ n: number }>`select n from counter where id = 1`.execute(database.db);
  assert.equal(rows[0]!.n, 2);
});
