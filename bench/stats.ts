/**
 * npm run bench:stats — GET /links/{id}/stats on a link with 10 million recorded visits over 90 days,
 * on SQLite and on PostgreSQL (when reachable at BENCH_POSTGRES_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres). The rollups are loaded directly, as ninety days of
 * flushes would have left them: per day and dimension, 50 countries, 200 referrers, 20 browsers.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { commands } from '../src/cli/commands.js';
import { loadConfig } from '../src/config.js';
import { analyticsDb } from '../src/store/analytics-schema.js';
import { openDatabase, type Database } from '../src/store/database.js';

const VISITS = 10_000_000;
const DAYS = 90;
const REQUESTS = 400;
const PG_ADMIN = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** One day's visits split over the values of each dimension with a long-tailed (1/rank) weighting. */
function split(total: number, values: string[]): [string, number][] {
  const weights = values.map((_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((total * w) / sum));
  counts[0]! += total - counts.reduce((a, b) => a + b, 0);
  return values.map((v, i) => [v, counts[i]!]);
}

async function seed(database: Database, linkId: string, now: number): Promise<void> {
  const db = analyticsDb(database.db);
  const dims: Record<string, string[]> = {
    source: ['s', 'q'],
    country: Array.from({ length: 50 }, (_, i) => String.fromCharCode(65 + (i % 26)) + String.fromCharCode(65 + Math.floor(i / 26))),
    device: ['mobile', 'desktop', 'tablet', 'bot', 'other'],
    browser: Array.from({ length: 20 }, (_, i) => `Browser ${i}`),
    referrer: Array.from({ length: 200 }, (_, i) => `site${i}.example`),
    bot: ['no', 'yes'],
  };
  const perDay = Math.floor(VISITS / DAYS);
  const rows = [];
  for (let d = 0; d < DAYS; d++) {
    const day = new Date(now - d * 86_400_000).toISOString().slice(0, 10);
    const visits = d === 0 ? VISITS - perDay * (DAYS - 1) : perDay;
    for (const [dimension, values] of Object.entries(dims)) {
      for (const [value, count] of split(visits, values)) rows.push({ link_id: linkId, dimension, day, value, count });
    }
  }
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('visit_rollups').values(rows.slice(i, i + 500)).execute();
  await db.updateTable('links').set({ visits: VISITS }).where('id', '=', linkId).execute();
  const gap = (from: number) => ({ id: crypto.randomUUID(), link_id: linkId, reason: 'daily_ceiling_reached', from_ms: from, to_ms: from + 3_600_000 });
  await db.insertInto('visit_gaps').values([gap(now - 10 * 86_400_000), gap(now - 40 * 86_400_000)]).execute();
}

async function run(kind: string, url: string): Promise<string> {
  const database = await openDatabase(url);
  const config = loadConfig({ DATABASE_URL: url, RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_ACCOUNT: '1000000', LOG_LEVEL: 'error' });
  const now = Date.now();
  const ctx = { database, config, now };
  const account = (await commands['accounts create']!.run({ email: `stats-${now}@example.test` }, ctx)) as { id: string };
  const { key } = (await commands['keys create']!.run({ account: account.id, scopes: 'links:write,analytics:read' }, ctx)) as { key: string };
  const app = await buildApp({ config, database });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
  const headers = { authorization: `Bearer ${key}` };
  const link = await fetch(`${base}/links`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ target: 'https://example.org/popular' }),
  }).then((r) => r.json());
  await seed(database, link.id, now);
  // Cold: a roll-up changed counts since the last read (the generation moves), so counts are recomputed.
  const bump = () =>
    analyticsDb(database.db)
      .insertInto('analytics_state')
      .values({ name: 'generation', value: 1 })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: sql<number>`analytics_state.value + 1` }))
      .execute();
  const timings = async (query: string, cold = false) => {
    const ms: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      if (cold) await bump();
      const start = performance.now();
      const res = await fetch(`${base}/links/${link.id}/stats${query}`, { headers });
      const body = await res.text();
      ms.push(performance.now() - start);
      if (i === 0 && query === '?days=90' && JSON.parse(body).total !== VISITS) throw new Error(`unexpected total in ${body.slice(0, 200)}`);
    }
    ms.sort((a, b) => a - b);
    const at = (p: number) => ms[Math.min(ms.length - 1, Math.floor(ms.length * p))]!.toFixed(2);
    return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`;
  };
  const lines = [
    `${kind}: stats JSON days=90 (10,000,000 visits), counts unchanged since the last read: ${await timings('?days=90')}`,
    `${kind}: stats JSON days=90, right after a roll-up (counts recomputed): ${await timings('?days=90', true)}`,
    `${kind}: stats JSON days=30, right after a roll-up: ${await timings('?days=30', true)}`,
    `${kind}: stats CSV days=90 (every row, never cached): ${await timings('?days=90&format=csv')}`,
  ];
  await app.close();
  await database.close();
  return lines.join('\n');
}

async function postgresUrl(): Promise<{ url: string; drop: () => Promise<void> } | undefined> {
  const admin = new pg.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  const name = `bench_stats_${crypto.randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const drop = async () => {
    const c = new pg.Client({ connectionString: PG_ADMIN });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  };
  return { url: PG_ADMIN.replace(/\/[^/]*$/, `/${name}`), drop };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-stats-'));
console.log(`${REQUESTS} sequential requests per line, over a real socket; load average ${os.loadavg()[0]!.toFixed(1)}`);
console.log(await run('SQLite', `sqlite:${path.join(dir, 'stats.db')}`));
fs.rmSync(dir, { recursive: true, force: true });
const pgDb = await postgresUrl();
if (pgDb) {
  console.log(await run('PostgreSQL', pgDb.url));
  await pgDb.drop();
} else {
  console.log(`PostgreSQL: not reachable at ${PG_ADMIN}, skipped`);
}
