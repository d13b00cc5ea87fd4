import type SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

/** SQL texts kept prepared per connection; the service runs a few hundred distinct ones. */
const STATEMENT_CACHE_SIZE = 1000;
/** Longest pause between two tries for the write lock. */
const MAX_PAUSE_MS = 16;

/**
 * Kysely's SQLite dialect, with two changes for a database that more than one connection writes (the
 * admin CLI beside the server, another instance's tools):
 * - Transactions start with BEGIN IMMEDIATE. A deferred transaction that reads first and writes later
 *   fails with SQLITE_BUSY (no retry possible) when another connection committed in between; an
 *   immediate one takes the write lock before it reads anything.
 * - Waiting for the write lock is asynchronous. SQLite's busy handler sleeps in the calling thread, so
 *   on the event loop it would stall every redirect for as long as the other writer's transaction
 *   lasts; here the connection has no busy timeout, and a statement or BEGIN refused with SQLITE_BUSY
 *   (nothing was done) is tried again after a timer, for up to `waitMs`.
 * And it keeps prepared statements by SQL text: Kysely's driver prepares every statement anew, which
 * was 3.5% of the CPU under redirect load, while the service runs the same texts over and over.
 */
export class SqliteWaitingDialect implements Dialect {
  constructor(
    private readonly open: () => SqliteDatabase.Database | Promise<SqliteDatabase.Database>,
    private readonly waitMs: number,
    /** Counted in place as the connection is taken and given back; /metrics reads it. */
    readonly use = new ConnectionUse(),
  ) {}

  createDriver(): Driver {
    return new WaitingDriver(this.open, this.waitMs, this.use);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }

  createAdapter() {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}

/** Whether the one connection is taken (by a query or a transaction), and how many wait for it. */
export class ConnectionUse {
  busy = false;
  waiting = 0;
}

class WaitingDriver implements Driver {
  private connection: WaitingConnection | undefined;
  /** SQLite has one connection here: a transaction holds it until it ends. */
  private held: Promise<void> | undefined;
  private release: (() => void) | undefined;

  constructor(
    private readonly open: () => SqliteDatabase.Database | Promise<SqliteDatabase.Database>,
    private readonly waitMs: number,
    private readonly use: ConnectionUse,
  ) {}

  async init(): Promise<void> {
    const sqlite = await this.open();
    // No busy handler: it would sleep in this thread (see SqliteWaitingDialect).
    sqlite.pragma('busy_timeout = 0');
    this.connection = new WaitingConnection(sqlite, this.waitMs);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.held) {
      this.use.waiting++;
      try {
        while (this.held !== undefined) await this.held;
      } finally {
        this.use.waiting--;
      }
    }
    this.held = new Promise((resolve) => (this.release = resolve));
    this.use.busy = true;
    return this.connection!;
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.held = undefined;
    this.release = undefined;
    this.use.busy = false;
    release?.();
  }

  beginTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as WaitingConnection).control('begin immediate');
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as WaitingConnection).control('commit');
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as WaitingConnection).control('rollback');
  }

  async destroy(): Promise<void> {
    this.connection?.close();
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const isBusy = (error: unknown) => {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

class WaitingConnection implements DatabaseConnection {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly waitMs: number,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.prepare(query.sql);
    const parameters = query.parameters as unknown[];
    // Inside a transaction this connection holds the write lock already: no statement is refused.
    // (SQLite's own flag: it also knows of a transaction that an error rolled back.)
    const inTransaction = this.sqlite.inTransaction;
    const run = <T>(work: () => T) => (inTransaction ? work() : this.whenFree(work));
    if (statement.reader) return { rows: (await run(() => statement.all(parameters))) as R[] };
    const { changes, lastInsertRowid } = await run(() => statement.run(parameters));
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not used with SQLite');
  }

  /** BEGIN IMMEDIATE (waiting for the write lock), COMMIT or ROLLBACK. */
  async control(sql: 'begin immediate' | 'commit' | 'rollback'): Promise<void> {
    // An error that made SQLite roll back itself (disk full, I/O) leaves nothing to roll back: a
    // ROLLBACK would fail and hide that error.
    if (sql === 'rollback' && !this.sqlite.inTransaction) return;
    const statement = this.prepare(sql);
    await this.whenFree(() => statement.run());
  }

  close(): void {
    this.sqlite.close();
  }

  /** Runs `work` until SQLite does not refuse it as busy, pausing between tries, for up to waitMs. */
  private async whenFree<T>(work: () => T): Promise<T> {
    const started = Date.now();
    for (let pauseMs = 1; ; pauseMs = Math.min(MAX_PAUSE_MS, pauseMs * 2)) {
      try {
        return work();
      } catch (error) {
        if (!isBusy(error) || Date.now() - started >= this.waitMs) throw error;
      }
      await pause(pauseMs);
    }
  }

  private prepare(sql: string): SqliteDatabase.Statement {
    let statement = this.statements.get(sql);
    if (statement) return statement;
    statement = this.sqlite.prepare(sql);
    // Oldest first out: the hot statements are re-prepared once and stay.
    if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!);
    this.statements.set(sql, statement);
    return statement;
  }
}
