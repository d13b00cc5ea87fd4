import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { Redis } from 'ioredis';
import { commands } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/platform/config.js';
import { openDatabase } from '../../src/platform/database/database.js';
import { ask, Load, type Target } from './load.js';
import { startServer, type ServerProcess } from './processes.js';
import { TEST_REDIS_URL } from './redis.js';

export const PG_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Limits out of the way (the load is the test's own), flushes and roll-ups often enough to read back soon. */
const ENV = {
  PUBLIC_URL: 'http://sho.rt',
  RATE_LIMIT_PER_IP: '1000000',
  RATE_LIMIT_PER_ACCOUNT: '1000000',
  FREE_LINKS_PER_MONTH: '1000000',
  FREE_VISITS_PER_MONTH: '1000000000',
  TRACKING_DAILY_LIMIT: '1000000000',
  REDIRECT_FLOOD_PER_MINUTE: '100000000',
  SHED_EVENT_LOOP_DELAY_MS: '0',
  SHED_REDIRECT_EVENT_LOOP_DELAY_MS: '0',
  SHED_DATABASE_LATENCY_MS: '0',
  ANALYTICS_FLUSH_INTERVAL_MS: '200',
  ANALYTICS_ROLLUP_INTERVAL_MS: '400',
};

export interface LoadedService {
  server: ServerProcess;
  target: Target;
  load: Load;
  /** Stops the load and the server; true if the server was still running. */
  stop(): Promise<boolean>;
}

/**
 * The real server on the database at `databaseUrl`, with an account, a key and a link (its redirect
 * served once, so cached), and concurrent load on it.
 */
export async function loadedService(databaseUrl: string, env: Record<string, string> = {}): Promise<LoadedService> {
  const database = await openDatabase(databaseUrl, { checkpoints: false });
  let key: string;
  try {
    const context = { database, config: loadConfig({}), now: Date.now() };
    const account = (await commands['accounts create']!.run({ email: `${crypto.randomUUID()}@example.test` }, context)) as { id: string };
    const scopes = 'links:read,links:write,analytics:read';
    key = ((await commands['keys create']!.run({ account: account.id, scopes }, context)) as { key: string }).key;
  } finally {
    await database.close();
  }
  const server = await startServer({ ...ENV, DATABASE_URL: databaseUrl, ...env });
  const res = await fetch(`${server.baseUrl}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ target: 'https://example.org/landing' }),
  });
  const link = (await res.json()) as { id: string; slug: string };
  const target = { baseUrl: server.baseUrl, key, linkId: link.id, slug: link.slug };
  const first = await ask('redirect', target);
  if (first.status !== 302) throw new Error(`redirect answered ${first.status}`);
  const load = new Load(target);
  return {
    server,
    target,
    load,
    stop: async () => {
      await load.stop();
      const alive = server.child.exitCode === null && server.child.signalCode === null;
      await server.stop();
      return alive;
    },
  };
}

export const alive = (server: ServerProcess): boolean => server.child.exitCode === null && server.child.signalCode === null;

/** An administrative PostgreSQL connection (to the maintenance database), for cutting a test database off. */
export class PostgresCutter {
  private constructor(
    private readonly admin: pg.Client,
    private readonly name: string,
  ) {}

  static async connect(databaseUrl: string): Promise<PostgresCutter> {
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    return new PostgresCutter(admin, new URL(databaseUrl).pathname.slice(1));
  }

  /** Connections of the database's clients (the server's pool and its recording thread). */
  async connections(): Promise<number> {
    const { rows } = await this.admin.query(`select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [this.name]);
    return rows[0].n;
  }

  /** Terminates every connection to the database, as an operator or a failover does. */
  async terminate(): Promise<number> {
    const { rows } = await this.admin.query(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
      [this.name],
    );
    return rows[0].n;
  }

  /** The database refuses new connections (and its open ones are terminated) until reopened. */
  async close(): Promise<void> {
    await this.admin.query(`alter database ${this.name} allow_connections false`);
    await this.terminate();
  }

  async reopen(): Promise<void> {
    await this.admin.query(`alter database ${this.name} allow_connections true`);
  }

  async end(): Promise<void> {
    await this.admin.end();
  }
}

export type CommitCut = 'before' | 'sent' | 'after';

/** A transaction's COMMIT as the pg driver sends it: a simple Query message ('Q', its length, the text). */
const COMMIT_MESSAGE = Buffer.concat([Buffer.from('Q'), Buffer.from([0, 0, 0, 11]), Buffer.from('commit\0')]);

/**
 * A TCP relay in front of PostgreSQL that, once armed, cuts the next connection that sends a COMMIT:
 * `after` the server answered it (the transaction took, the client never hears so), `before` it
 * reaches the server (it did not), or as soon as it is `sent` (the server, not yet done with it, goes
 * on). The ways a connection can drop at a commit.
 */
export class CommitCutter {
  private armed: CommitCut | undefined;
  /** Connections cut so far. */
  cuts = 0;
  private readonly sockets = new Set<net.Socket>();

  private constructor(private readonly server: net.Server) {}

  static async start(databaseUrl: string): Promise<{ cutter: CommitCutter; url: string }> {
    const target = new URL(databaseUrl);
    const server = net.createServer();
    const cutter = new CommitCutter(server);
    server.on('connection', (client) => cutter.relay(client, target));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = new URL(databaseUrl);
    url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    return { cutter, url: url.toString() };
  }

  arm(when: CommitCut): void {
    this.armed = when;
  }

  disarm(): void {
    this.armed = undefined;
  }

  private relay(client: net.Socket, target: URL): void {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    let cutting = false;
    const cut = () => {
      this.cuts++;
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (this.armed !== undefined && chunk.includes(COMMIT_MESSAGE)) {
        const when = this.armed;
        this.armed = undefined;
        if (when === 'before') return cut();
        if (when === 'sent') {
          // Ended, not destroyed: the COMMIT goes out first, and the server reads it before the end.
          upstream.end(chunk);
          this.cuts++;
          return client.destroy();
        }
        cutting = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => (cutting ? cut() : client.write(chunk)));
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
    await once(this.server, 'close');
  }
}

/**
 * Another process holding a SQLite file's write lock (as the admin CLI or a backup may): readers go
 * on, writers wait. Its own process, as a lock taken here would stall this process's load while it
 * waits for the server's transactions. Resolves once the lock is held, with its release.
 */
export async function holdSqliteWriteLock(file: string): Promise<() => Promise<void>> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const script = `
    const db = new (require(process.argv[2]))(process.argv[1], { timeout: 10000 });
    db.exec('begin immediate');
    process.stdout.write('locked\\n');
    process.stdin.on('end', () => { db.exec('rollback'); db.close(); }).resume();
  `;
  const child = spawn(process.execPath, ['-e', script, file, driver], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const [line] = await Promise.race([once(child.stdout, 'data'), exited]);
  if (!String(line).startsWith('locked')) throw new Error('the lock holder exited before taking the lock');
  return async () => {
    child.stdin.end();
    await exited;
  };
}

/** Another process reading the SQLite file: its snapshot keeps the log from starting over, so every commit needs new space. */
export function holdSqliteReader(file: string): () => void {
  const other = new SqliteDatabase(file, { timeout: 10_000 });
  other.exec('begin');
  other.prepare('select count(*) from links').get();
  return () => {
    other.exec('rollback');
    other.close();
  };
}

/** A small tmpfs for a full disk, or why there cannot be one here. */
export function smallTmpfs(): { dir: string; unmount: () => void } | string {
  if (process.platform !== 'linux') return 'a tmpfs needs Linux';
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-full-'));
  try {
    // Room for a new database (16 KiB pages, a page or more for each table and index) and its log while it migrates.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs: ${String((error as { stderr?: unknown }).stderr ?? error).trim()}`;
  }
  return {
    dir,
    unmount: () => {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the file system holding `dir` to the last byte; returns a function that frees the space again. */
export function fillDisk(dir: string): () => void {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (let size = chunk.length; size >= 1; size = Math.floor(size / 2)) {
      for (;;) {
        try {
          fs.writeSync(fd, chunk, 0, size);
        } catch {
          break;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return () => fs.rmSync(filler, { force: true });
}

/** Ends the Redis connections of the server process (ioredis names them after the process). */
export async function killRedisClients(pid: number, options: { dryRun?: boolean } = {}): Promise<number> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    const list = (await redis.call('client', 'list')) as string;
    const ids = list
      .split('\n')
      .filter((line) => line.includes(` name=shortlinks:${pid} `))
      .map((line) => /(?:^|\s)id=(\d+)/.exec(line)![1]!);
    if (!options.dryRun) for (const id of ids) await redis.call('client', 'kill', 'id', id);
    return ids.length;
  } finally {
    redis.disconnect();
  }
}
