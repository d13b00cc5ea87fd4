import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { Checkpointer } from './checkpointer.js';
import { migrateToLatest } from './migrations.js';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  readonly db: Kysely<DB>;
  /**
   * For the redirect path's reads (slug lookups, the change feed): never queued behind a write
   * transaction. SQLite: a second, read-only connection (WAL readers see the last commit without
   * waiting), because the one writing connection runs one transaction at a time and a roll-up pass
   * holds it across yields. PostgreSQL: the same pool, whose connections already run side by side.
   */
  readonly reads: Kysely<DB>;
  readonly dialect: Dialect;
  close(): Promise<void>;
}

/**
 * Opens the database named by DATABASE_URL and brings its schema up to date. Every difference between
 * SQLite and PostgreSQL that the rest of the code must not know about lives here or in sql-errors.ts.
 */
export async function openDatabase(url: string, options: { migrate?: boolean } = {}): Promise<Database> {
  const database = url.startsWith('sqlite:') ? openSqlite(url.slice('sqlite:'.length)) : openPostgres(url);
  if (options.migrate !== false) {
    try {
      await migrateToLatest(database.db);
    } catch (error) {
      await database.close();
      throw error;
    }
  }
  if (database.dialect === 'sqlite') {
    // Statement journals (a multi-row upsert keeps the pages it changes, to undo just that statement)
    // and sorts stay in memory: as temporary files they were more bytes written than the log (strace
    // of the redirect benchmark: 62 MB against 91 MB in 30 s). Only after migrating: a migration's
    // sorts of a whole table may be larger than memory should hold.
    await sql`pragma temp_store = memory`.execute(database.db);
  }
  return database;
}

const sqlitePragmas = (sqlite: SqliteDatabase.Database) => {
  sqlite.pragma('busy_timeout = 5000');
  // Roll-ups upsert rows of thousands of links at a time: with SQLite's default 2 MB page cache most of
  // those pages were re-read through system calls. 64 MB of cache and memory-mapped reads keep them close.
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 268435456');
};

function openSqlite(file: string): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  // WAL lets the CLI and readers work while the server writes; busy_timeout makes a writer from another
  // process (the CLI) wait for the lock instead of failing at once.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlitePragmas(sqlite);
  // Kysely's SQLite driver runs one connection behind a mutex, so transactions of this process are
  // serialized: a guarded update inside one is atomic with respect to every other request.
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  if (file === ':memory:') return { db, reads: db, dialect: 'sqlite', close: () => db.destroy() };
  // Checkpoints run in a worker thread (checkpointer.ts); the writer checkpoints itself only if the
  // log passes this many pages (100 MB), which that thread normally never lets happen. A busy
  // roll-up writes tens of megabytes of log before the log can start over; the file is cut back to
  // 16 MB when it does.
  sqlite.pragma(`wal_autocheckpoint = ${SAFETY_CHECKPOINT_PAGES}`);
  sqlite.pragma('journal_size_limit = 16777216');
  const checkpointer = new Checkpointer(path.resolve(file), CHECKPOINT_INTERVAL_MS);
  // Opened on first use: the file must exist and be migrated by then.
  const reads = new Kysely<DB>({
    dialect: new SqliteDialect({
      database: async () => {
        const reader = new SqliteDatabase(file, { readonly: true });
        sqlitePragmas(reader);
        return withStatementCache(reader);
      },
    }),
  });
  const close = async () => {
    await checkpointer.stop();
    await Promise.all([db.destroy(), reads.destroy()]);
  };
  return { db, reads, dialect: 'sqlite', close };
}

const CHECKPOINT_INTERVAL_MS = 500;
const SAFETY_CHECKPOINT_PAGES = 25_000;

/** SQL texts kept prepared; the service runs a few hundred distinct ones. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Kysely's SQLite driver prepares every statement anew, yet the service runs the same SQL texts over
 * and over (slug lookups, flushes, allowance updates): preparing was 3.5% of the CPU under redirect
 * load. better-sqlite3 statements are reusable, so they are kept in a bounded cache by SQL text.
 * Sharing one is safe because statements here are never iterated (no streaming queries) and the
 * driver runs one statement at a time; SQLite re-prepares a cached statement itself after a schema
 * change.
 */
function withStatementCache(sqlite: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) return statement;
      statement = sqlite.prepare(sql);
      // Oldest first out: the hot statements are re-prepared once and stay.
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(sql, statement);
      return statement;
    },
  };
}

function openPostgres(url: string): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5000,
    // bigint (int8) columns hold Unix milliseconds and credit amounts, all far below 2^53: read them as
    // numbers rather than pg's default strings. Set per pool so no global state is touched.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, reads: db, dialect: 'postgres', close: () => db.destroy() };
}

export async function ping(database: Database): Promise<void> {
  await sql`select 1`.execute(database.db);
}
