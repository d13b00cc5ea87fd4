import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { Checkpointer } from '../../src/platform/database/checkpointer.js';
import { until } from '../helpers/load.js';

test('a checkpoint thread that could not open the database is started again, and checkpoints once the file can be opened', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'checkpointer-restart-'));
  // The file's folder is not there yet: the first thread cannot open the database and ends.
  const file = path.join(dir, 'later', 'db.sqlite');
  let failures = 0;
  const checkpointer = new Checkpointer(file, 20, () => failures++);
  let writer: SqliteDatabase.Database | undefined;
  try {
    await until('the first thread has failed', () => failures > 0);
    fs.mkdirSync(path.dirname(file));
    writer = new SqliteDatabase(file);
    writer.pragma('journal_mode = WAL');
    // Only the checkpoint thread copies the log into the file.
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table filler (text text not null)');
    const insert = writer.prepare('insert into filler (text) values (?)');
    for (let i = 0; i < 100; i++) insert.run('x'.repeat(4000));
    const size = () => fs.statSync(file).size;
    assert.ok(size() < 100_000, `database file is ${size()} bytes before any checkpoint`);
    await until('the log is copied into the database file', () => size() > 400_000, 10_000);
  } finally {
    await checkpointer.stop();
    writer?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
