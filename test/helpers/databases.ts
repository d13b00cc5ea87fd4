import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe } from 'node:test';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/platform/database/database.js';

export type DatabaseKind = 'sqlite' | 'postgres';

const PG_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Why PostgreSQL tests cannot run here, or undefined when they can. In CI they must run. The timeout is
 * generous: it runs while the test file's other modules load, and on a busy two-core machine a 3 s
 * timeout once expired with the server up (the timer fired after a long synchronous stretch).
 */
async function postgresUnavailable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    const reason = `PostgreSQL unreachable at ${PG_ADMIN_URL}: ${(error as Error).message}`;
    if (process.env.CI === 'true') throw new Error(`${reason} (CI requires it)`);
    console.log(`skipping PostgreSQL suites: ${reason}`);
    return reason;
  } finally {
    await client.end().catch(() => {});
  }
}

const pgSkip = await postgresUnavailable();

/** For suites that need PostgreSQL itself (e.g. several processes on one database). */
export const postgresSkip = pgSkip;

/** A fresh, empty database URL of the given kind: a temp SQLite file, or a new PostgreSQL database. */
export async function freshDatabaseUrl(kind: DatabaseKind): Promise<{ url: string; drop: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-test-'));
    return { url: `sqlite:${path.join(dir, 'test.db')}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  return {
    url,
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface TestDatabase extends Database {
  url: string;
  drop(): Promise<void>;
}

/**
 * The deployment secret of every test database, in place of the random one a service makes at its
 * first start (settings-store.ts): unique-visitor codes are hashed with it, and under a random one any
 * two of a test's visitors would fall in the same sketch register once in 4,096 runs, which a test
 * that counts them reads as one visitor. Fixed, every test's codes are the same on every run.
 */
const TEST_NETWORK_SECRET = 'test-network-secret';

export async function freshDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  const { url, drop } = await freshDatabaseUrl(kind);
  const database = await openDatabase(url);
  await database.db
    .insertInto('settings')
    .values({ name: 'network_secret', value: TEST_NETWORK_SECRET })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return {
    ...database,
    url,
    drop: async () => {
      await database.close();
      await drop();
    },
  };
}

/** Runs a suite once per database: SQLite always, PostgreSQL when reachable (always in CI). */
export function eachDatabase(name: string, suite: (kind: DatabaseKind) => void): void {
  describe(`${name} (sqlite)`, () => suite('sqlite'));
  describe(`${name} (postgres)`, { skip: pgSkip }, () => suite('postgres'));
}
