import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase, SQLITE_PAGE_SIZE } from '../../src/platform/database/database.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-pages-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The file's page size, and the log size (in pages) at which the writing connection checkpoints itself. */
const pages = async (url: string) => {
  const database = await openDatabase(url, { checkpoints: false });
  try {
    const { rows } = await sql<{ page_size: number }>`pragma page_size`.execute(database.db);
    const { rows: limit } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.db);
    return [rows[0]!.page_size, limit[0]!.wal_autocheckpoint];
  } finally {
    await database.close();
  }
};

test('a new SQLite database file gets pages of SQLITE_PAGE_SIZE bytes, and checkpoints itself past 100 MiB of log', async () => {
  assert.deepEqual(await pages(`sqlite:${path.join(dir, 'new.db')}`), [SQLITE_PAGE_SIZE, (100 * 1024 * 1024) / SQLITE_PAGE_SIZE]);
});

test('an existing file keeps its page size (and its safety checkpoint of 100 MiB) and its rows, and is migrated', async () => {
  const file = path.join(dir, 'old.db');
  const old = new SqliteDatabase(file);
  old.pragma('page_size = 4096');
  old.pragma('journal_mode = WAL');
  old.exec("create table kept (v text); insert into kept values ('here')");
  old.close();
  assert.deepEqual(await pages(`sqlite:${file}`), [4096, (100 * 1024 * 1024) / 4096]);
  const database = await openDatabase(`sqlite:${file}`, { checkpoints: false });
  try {
    assert.deepEqual((await sql<{ v: string }>`select v from kept`.execute(database.db)).rows, [{ v: 'here' }]);
    assert.equal((await sql<{ n: number }>`select count(*) as n from links`.execute(database.db)).rows[0]!.n, 0);
  } finally {
    await database.close();
  }
});
