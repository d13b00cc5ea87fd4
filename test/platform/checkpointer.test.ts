import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/platform/database/database.js';
import { until } from '../helpers/load.js';

test('on SQLite the write-ahead log is copied into the database file by a worker thread, not by a commit, and close stops it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkpointer-'));
  const file = path.join(dir, 'db.sqlite');
  const database = await openDatabase(`sqlite:${file}`);
  try {
    await sql`create table filler (id integer primary key, text text not null)`.execute(database.db);
    const size = () => fs.statSync(file).size;
    const before = size();
    // About 8 MB of log: far below the writer's own limit (100 MB), so only the worker copies it.
    const row = 'x'.repeat(4000);
    for (let i = 0; i < 20; i++) {
      await database.db.transaction().execute(async (tx) => {
        for (let j = 0; j < 100; j++) await sql`insert into filler (text) values (${row})`.execute(tx);
      });
    }
    assert.ok(fs.statSync(`${file}-wal`).size > 7_000_000);
    await until('the worker has copied the log into the database file (it grows by 7 MB)', () => size() - before >= 7_000_000, 10_000);
  } finally {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('after the read-only connection was used, close leaves only the database file (the writer closes last and removes the log)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'close-order-'));
  const file = path.join(dir, 'db.sqlite');
  const database = await openDatabase(`sqlite:${file}`);
  try {
    await sql`create table t (id integer primary key)`.execute(database.db);
    await sql`insert into t (id) values (1)`.execute(database.db);
    await sql`select id from t`.execute(database.reads);
  } finally {
    await database.close();
  }
  assert.deepEqual(fs.readdirSync(dir), ['db.sqlite']);
  fs.rmSync(dir, { recursive: true, force: true });
});
