import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { Checkpointer } from './checkpointer.js';
import { migrateToLatest } from './migrations.js';
import { listenForNotices, type NoticeHandlers, type NoticeListener } from './notices.js';
import { SqliteWaitingDialect } from './sqlite-driver.js';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  readonly db: Kysely<DB>;
  /**
   * For the redirect path's reads (slug lookups, the change feed): never queued behind a write
   * transaction. SQLite: a second, read-only connection (WAL readers see the last commit without
   * waiting), because the writing connection runs one transaction at a time (a flush's lasts a
   * second under heavy recording). PostgreSQL: the same pool, whose connections already run side by side.
   */
  readonly reads: Kysely<DB>;
  readonly dialect: Dialect;
  /** DATABASE_URL, as opened. */
  readonly url: string;
  /**
   * PostgreSQL only: notices sent with NOTIFY on `channel` by any connection, on a connection of their
   * own (notices.ts). SQLite has no push between processes; its readers poll instead.
   */
  readonly listen?: (channel: string, handlers: NoticeHandlers) => NoticeListener;
  /** How its connections are used right now (/metrics): read in place, no query. */
  connections(): ConnectionsInUse;
  close(): Promise<void>;
}

/**
 * PostgreSQL: the pool's connections and the queries waiting for one. SQLite: the one writing
 * connection (requests' queries and transactions, and flushes, take turns on it: sqlite-driver.ts).
 */
export interface ConnectionsInUse {
  max: number;
  open: number;
  idle: number;
  waiting: number;
}

/**
 * Opens the database named by DATABASE_URL and brings its schema up to date. Every difference between
 * SQLite and PostgreSQL that the rest of the code must not know about lives here or in sql-errors.ts.
 */
export interface OpenOptions {
  migrate?: boolean;
  /** SQLite: run the checkpoint thread (the server's connection does; a tool's short-lived one need not). */
  checkpoints?: boolean;
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  const database = url.startsWith('sqlite:') ? openSqlite(url, options) : openPostgres(url);
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

/** Bytes per page of a new SQLite database file (see openSqlite). */
export const SQLITE_PAGE_SIZE = 16_384;

/** How long a SQLite statement waits for another connection's write lock (asynchronously: sqlite-driver.ts). */
const SQLITE_WAIT_MS = 5000;

const sqlitePragmas = (sqlite: SqliteDatabase.Database) => {
  // A flush upserts rows of thousands of links at a time: with SQLite's default 2 MB page cache most of
  // those pages were re-read through system calls. 64 MB of cache and memory-mapped reads keep them close.
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 268435456');
};

function openSqlite(url: string, options: OpenOptions): Database {
  const file = url.slice('sqlite:'.length);
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  // WAL lets the CLI and readers work while the server writes; a writer waits for
  // another's lock (sqlite-driver.ts) instead of failing at once.
  // A new file gets 16 KiB pages (an existing one keeps its own): a flush's commit writes every page
  // it changed to the log at once, on the event loop, and four times fewer frames made that about
  // 40% shorter at 10,000 busy links (`npm run bench:flush-load`, longest hold). Must precede WAL.
  sqlite.pragma(`page_size = ${SQLITE_PAGE_SIZE}`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlitePragmas(sqlite);
  // One connection behind a mutex, so transactions of this connection are serialized: a guarded update
  // inside one is atomic with respect to every other request; other connections wait for its lock.
  const writer = new SqliteWaitingDialect(() => sqlite, SQLITE_WAIT_MS);
  const db = new Kysely<DB>({ dialect: writer });
  const connections = () => ({ max: 1, open: 1, idle: writer.use.busy ? 0 : 1, waiting: writer.use.waiting });
  if (file === ':memory:') return { db, reads: db, dialect: 'sqlite', url, connections, close: () => db.destroy() };
  // Checkpoints run in a worker thread (checkpointer.ts); the writer checkpoints itself only if the
  // log passes 100 MB (in pages of the file's size), which that thread normally never lets happen. A busy
  // flush writes megabytes of log before the log can start over; the file is cut back to
  // 16 MB when it does.
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  sqlite.pragma(`wal_autocheckpoint = ${Math.ceil(SAFETY_CHECKPOINT_BYTES / pageSize)}`);
  sqlite.pragma('journal_size_limit = 16777216');
  const checkpointer = options.checkpoints !== false ? new Checkpointer(path.resolve(file), CHECKPOINT_INTERVAL_MS) : undefined;
  // Opened on first use: the file must exist and be migrated by then.
  const reads = new Kysely<DB>({
    // Never used for transactions: BEGIN IMMEDIATE on a read-only connection would fail.
    dialect: new SqliteWaitingDialect(() => {
      const reader = new SqliteDatabase(file, { readonly: true });
      sqlitePragmas(reader);
      return reader;
    }, SQLITE_WAIT_MS),
  });
  const close = async () => {
    await checkpointer?.stop();
    // The read-only connection first: the last connection to close folds the log into the database
    // file and removes it, which a read-only one cannot do.
    await reads.destroy();
    await db.destroy();
  };
  return { db, reads, dialect: 'sqlite', url, connections, close };
}

const CHECKPOINT_INTERVAL_MS = 500;
const SAFETY_CHECKPOINT_BYTES = 100 * 1024 * 1024;

/** Connections in each instance's pool. */
const POSTGRES_POOL_SIZE = 10;

function openPostgres(url: string): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: POSTGRES_POOL_SIZE,
    connectionTimeoutMillis: 5000,
    // bigint (int8) columns hold Unix milliseconds and credit amounts, all far below 2^53: read them as
    // numbers rather than pg's default strings. Set per pool so no global state is touched.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
        oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // The pool listens to a client only while it is idle: one checked out (between two statements of a
  // request, inside a transaction) whose connection is terminated emits 'error' with no listener, which
  // ends the process. The statement in flight fails by itself (503), and the pool discards the client
  // when it is released, since it is no longer queryable.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const listen = (channel: string, handlers: NoticeHandlers) => listenForNotices(url, channel, handlers);
  const connections = () => ({ max: POSTGRES_POOL_SIZE, open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  return { db, reads: db, dialect: 'postgres', url, listen, connections, close: () => db.destroy() };
}

export async function ping(database: Database): Promise<void> {
  await sql`select 1`.execute(database.db);
}
