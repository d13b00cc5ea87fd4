import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CliError, required, type Command } from './command.js';

/** Pages per step of the backup: all of them, so the copy is one read transaction and never starts over. */
const ALL_PAGES = 0x7fffffff;

/**
 * `backup --to <file>` (CONTRACT.md): a consistent copy of the SQLite database while the server runs,
 * through SQLite's online backup API. The copy is made in one step, a single read transaction: the
 * server's writes go on (WAL), and a copy taken in many steps would start over after each of them.
 * It is written beside its destination and renamed into place, so a file at that name is always a
 * whole backup; an existing file is never overwritten. PostgreSQL has its own tools (pg_dump).
 */
export const backupCommand: Command = {
  options: { to: { type: 'string' } },
  help: {
    usage: '--to <file>',
    summary: 'Copy the running SQLite database to a new file, consistently (SQLite online backup). On PostgreSQL: use pg_dump.',
    prints: '{"file", "bytes"}',
  },
  async run(values, { database }) {
    if (database.dialect !== 'sqlite') {
      throw new CliError('backup copies a SQLite database; on PostgreSQL use pg_dump (pg_dump --format=custom --file=<file> "$DATABASE_URL")');
    }
    const source = database.url.slice('sqlite:'.length);
    if (source === ':memory:') throw new CliError('backup needs a database file, not :memory:');
    const file = path.resolve(required(values, 'to'));
    if (!fs.existsSync(path.dirname(file))) throw new CliError(`--to: folder ${path.dirname(file)} does not exist`);
    if (fs.existsSync(file)) throw new CliError(`--to: ${file} exists; a backup never overwrites a file`);
    const partial = `${file}.partial`;
    const reader = new SqliteDatabase(source, { readonly: true, fileMustExist: true });
    try {
      await reader.backup(partial, { progress: () => ALL_PAGES });
      fs.renameSync(partial, file);
    } catch (error) {
      fs.rmSync(partial, { force: true });
      throw new CliError(`backup failed: ${(error as Error).message}`);
    } finally {
      reader.close();
    }
    return { file, bytes: fs.statSync(file).size };
  },
};
