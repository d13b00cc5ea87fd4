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

const pageSize = async (url: string) => {
  const database = await openDatabase(url, { checkpoints: false });
  try {
    const { rows } = await sql<{ page_size: number }>`pragma page_size`.execute(database.db);
    return rows[0]!.page_size;
  } finally {
    await database.close();
  }
};

test('a new SQLite database file gets pages of SQLITE_PAGE_SIZE bytes', async () => {
  assert.equal(SQLITE_PAGE_SIZE, 16_384);
  assert.equal(await pageSize(`sqlite:${path.join(dir, 'new.db')}`), SQLITE_PAGE_SIZE);
});

test('an existing file keeps its page size and its rows, and is migrated', async () => {
  const file = path.join(dir, 'old.db');
  const old = new SqliteDatabase(file);
  old.pragma('page_size = 4096');
  old.pragma('journal_mode = WAL');
  old.exec("create table kept (v text); insert into kept values ('here')");
  old.close();
  assert.equal(await pageSize(`sqlite:${file}`), 4096);
  const database = await openDatabase(`sqlite:${file}`, { checkpoints: false });
  try {
    assert.deepEqual((await sql<{ v: string }>`select v from kept`.execute(database.db)).rows, [{ v: 'here' }]);
    assert.equal((await sql<{ n: number }>`select count(*) as n from links`.execute(database.db)).rows[0]!.n, 0);
  } finally {
    await database.close();
  }
});
