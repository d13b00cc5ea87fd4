/**
 * npm run bench:stats — GET /links/{id}/stats on a link with 10 million recorded visits over 90 days,
 * on SQLite and on PostgreSQL (when reachable at BENCH_POSTGRES_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres). The tallies are loaded directly, as ninety days of
 * flushes would have left them: per closed day one row, with 96 quarter hours, 50 countries, 200
 * referrers, 20 browsers and the other dimensions, and four full unique-visitor sketches, and today a
 * row per hour so far (a writer's rows hold at most an hour), each with four full sketches (the
 * service's clock is set to 18:00 UTC: eighteen such rows and a nineteenth begun); then the service's own
 * compaction compacts the closed days and today's eighteen rows of hours gone by, as it would have
 * done each day and hour (its time is printed), and the row of the hour goes in after it. The
 * server keeps what it read and reads again only the rows that changed: repeated reads of one link,
 * and first reads of each of BENCH_FIRST_READS other links with the same counts, and repeated reads
 * while the row of the hour changes every 20 ms (as flushes that count the link's visits change it). The client runs on a
 * thread of its own, one request at a time; an answer other than 200 fails the run.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { commands } from '../src/cli/commands.js';
import { loadConfig } from '../src/platform/config.js';
import { DAY_MS, utcDay } from '../src/platform/time.js';
import { quarterOf } from '../src/analytics/counts.js';
import { encode, packSketches, REGISTERS } from '../src/analytics/visitors.js';
import { openDatabase, type Database } from '../src/platform/database/database.js';
import { PG_ADMIN, postgresUrl } from './postgres.js';

const VISITS = 10_000_000;
const DAYS = 90;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 200);
const FIRST_READS = Number(process.env.BENCH_FIRST_READS ?? 40);

/** One day's visits split over the values of each dimension with a long-tailed (1/rank) weighting. */
function split(total: number, values: string[]): [string, number][] {
  const weights = values.map((_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((total * w) / sum));
  counts[0]! += total - counts.reduce((a, b) => a + b, 0);
  return values.map((v, i) => [v, counts[i]!]);
}

/**
 * Ninety days of the links' counts; returns what puts in the row of the hour, as a running instance's
 * writer holds it (listed as the writer of an instance, so that the compaction leaves it alone).
 */
async function seed(database: Database, linkIds: string[], now: number): Promise<() => Promise<void>> {
  const dims: Record<string, string[]> = {
    time: Array.from({ length: 96 }, (_, i) => `${String(Math.floor(i / 4)).padStart(2, '0')}:${String(15 * (i % 4)).padStart(2, '0')}`),
    country: Array.from({ length: 50 }, (_, i) => String.fromCharCode(65 + (i % 26)) + String.fromCharCode(65 + Math.floor(i / 26))),
    device: ['mobile', 'desktop', 'tablet', 'bot', 'other'],
    browser: Array.from({ length: 20 }, (_, i) => `Browser ${i}`),
    os: ['iOS', 'Android', 'Windows', 'Mac OS', 'Linux', 'Chromium OS', 'other', 'Ubuntu'],
    referrer: Array.from({ length: 200 }, (_, i) => `site${i}.example`),
  };
  const perDay = Math.floor(VISITS / DAYS);
  type Row = { day: string; writer: string; version: number; counts: string; visitors: Uint8Array };
  const rows: Row[] = [];
  let ofTheHour: Row | undefined;
  for (let d = 0; d < DAYS; d++) {
    const visits = d === 0 ? VISITS - perDay * (DAYS - 1) : perDay;
    const day = utcDay(now - d * DAY_MS);
    const counts: Record<string, (string | number)[]> = {};
    for (const [dimension, all] of Object.entries(dims)) {
      // Today's visits came before now.
      const values = d === 0 && dimension === 'time' ? all.filter((quarter) => quarter <= quarterOf(now)) : all;
      // Through /s/ and /q/, by people and by bots: 55, 35, 6 and 4 in a hundred.
      counts[dimension] = split(visits, values).flatMap(([value, n]) => {
        const bots = Math.floor(n / 10);
        const s = Math.floor(((n - bots) * 55) / 90);
        return [value, s, n - bots - s, Math.floor((bots * 6) / 10), bots - Math.floor((bots * 6) / 10)];
      });
    }
    // Unique visitors: a full sketch per source and class, as tens of thousands of visitors a day leave.
    const sketches = () => packSketches([0, 1, 2, 3].map(() => encode(Uint8Array.from({ length: REGISTERS }, () => 1 + crypto.randomInt(12)))));
    if (d > 0) {
      // A closed day: one writer (one instance, restarted daily); the compaction makes it one row anyway.
      rows.push({ day, writer: `bench-${d}`, version: 1, counts: JSON.stringify(counts), visitors: sketches() });
      continue;
    }
    // Today: a row per hour so far, as the instance's writer of each hour left it (counts.ts, Tallies);
    // the compaction adds up those of the hours gone by, and the hour's goes in after it (run).
    const hours = Number(quarterOf(now).slice(0, 2)) + 1;
    for (let hour = 0; hour < hours; hour++) {
      const ofHour = Object.fromEntries(
        Object.entries(counts).map(([dimension, list]) => {
          const part: (string | number)[] = [];
          for (let i = 0; i < list.length; i += 5) {
            const value = list[i] as string;
            if (dimension === 'time' && Number(value.slice(0, 2)) !== hour) continue;
            // Other dimensions: the hour's share of each value's count, the first hour taking what is left.
            const n = list.slice(i + 1, i + 5) as number[];
            part.push(value, ...(dimension === 'time' ? n : n.map((c) => Math.floor(c / hours) + (hour === 0 ? c % hours : 0))));
          }
          return [dimension, part];
        }),
      );
      const row = { day, writer: `bench-0-${hour}`, version: 1, counts: JSON.stringify(ofHour), visitors: sketches() };
      if (hour < hours - 1) rows.push(row);
      else ofTheHour = row;
    }
  }
  for (const linkId of linkIds) {
    for (let i = 0; i < rows.length; i += 30)
      await database.db
        .insertInto('visit_tallies')
        .values(rows.slice(i, i + 30).map((row) => ({ ...row, link_id: linkId })))
        .execute();
    await database.db.updateTable('links').set({ visits: VISITS }).where('id', '=', linkId).execute();
  }
  const [linkId] = linkIds;
  const gap = (from: number) => ({ id: crypto.randomUUID(), link_id: linkId, reason: 'daily_ceiling_reached', from_ms: from, to_ms: from + 3_600_000 });
  await database.db
    .insertInto('visit_gaps')
    .values([gap(now - 10 * DAY_MS), gap(now - 40 * DAY_MS)])
    .execute();
  return async () => {
    const row = ofTheHour!;
    await database.db
      .insertInto('recorder_instances')
      .values({ id: crypto.randomUUID(), started_at: now, beat_at: now, flushed_to: now, writer: row.writer })
      .execute();
    await database.db
      .insertInto('visit_tallies')
      .values(linkIds.map((linkId) => ({ ...row, link_id: linkId })))
      .execute();
  };
}

/**
 * The requests, one after another, from a client on a thread of its own (as a real client is in a
 * process of its own: its work must not share the server's event loop): each one's milliseconds, and
 * the first body. Any answer but 200 (load shedding, say, on a busy machine) fails the benchmark.
 */
async function requests(urls: string[], headers: Record<string, string>): Promise<{ ms: number[]; first: string }> {
  const client = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const ms = [];
      let first;
      for (const url of workerData.urls) {
        const start = performance.now();
        const res = await fetch(url, { headers: workerData.headers });
        const body = await res.text();
        ms.push(performance.now() - start);
        if (res.status !== 200) throw new Error(url + ' answered ' + res.status + ': ' + body.slice(0, 200));
        first ??= body;
      }
      parentPort.postMessage({ ms, first });
    })();`,
    { eval: true, workerData: { urls, headers } },
  );
  const [result] = (await once(client, 'message')) as [{ ms: number[]; first: string }];
  await client.terminate();
  return result;
}

async function run(kind: string, url: string): Promise<string[]> {
  const database = await openDatabase(url);
  const config = loadConfig({
    DATABASE_URL: url,
    RATE_LIMIT_PER_IP: '1000000',
    RATE_LIMIT_PER_ACCOUNT: '1000000',
    FREE_LINKS_PER_MONTH: '1000',
    // The instance of the hour's row (seed) writes no heartbeat: it must not be reaped while the benchmark runs.
    ANALYTICS_HEARTBEAT_INTERVAL_MS: '600000',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error',
  });
  // The service's clock at the last 18:00 UTC: today holds eighteen hours, whenever the benchmark runs.
  const shift = ((Date.now() - 18 * 3_600_000) % DAY_MS) - 60_000;
  const now = () => Date.now() - shift;
  const ctx = { database, config, now: now() };
  const account = (await commands['accounts create']!.run({ email: `stats-${ctx.now}@example.test` }, ctx)) as { id: string };
  const { key } = (await commands['keys create']!.run({ account: account.id, scopes: 'links:read,links:write,analytics:read' }, ctx)) as { key: string };
  const app = await buildApp({ config, database, now, logger: process.env.BENCH_LOG_LEVEL ? { level: process.env.BENCH_LOG_LEVEL } : undefined });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
  const headers = { authorization: `Bearer ${key}` };
  const create = () =>
    fetch(`${base}/links`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ target: 'https://example.org/popular' }),
    }).then((r) => r.json() as Promise<{ id: string }>);
  const link = await create();
  // Links read once each, for first reads: the same ninety days of counts as the link read again and again.
  const others: { id: string }[] = [];
  for (let i = 0; i < FIRST_READS; i++) others.push(await create());
  const theHour = await seed(database, [link.id, ...others.map((o) => o.id)], now());
  // Ninety days of a running service have compacted every closed day, and today's hours gone by: the real compaction does it here.
  const compacting = performance.now();
  await app.visitRecorder.compact();
  await theHour();
  console.error(`${kind}: compacted in ${((performance.now() - compacting) / 1000).toFixed(1)} s`);
  // A 90-day-old table has been vacuumed and analysed by autovacuum: index-only scans and statistics.
  const settle = () => (database.dialect === 'postgres' ? sql`vacuum analyze`.execute(database.db) : undefined);
  await settle();
  // Loading held the event loop: load shedding refuses requests until its next samples see it free.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  const bodies = new Map<string, string>();
  /** Runs `measure` while the row of the hour changes, as a flush that counted visits of the link changes it (its version). */
  const flushing = async (measure: () => Promise<string>) => {
    const hour = `bench-0-${new Date(now()).getUTCHours()}`;
    const bump = () =>
      database.db
        .updateTable('visit_tallies')
        .set({ version: sql<number>`version + 1` })
        .where('link_id', '=', link.id)
        .where('writer', '=', hour)
        .execute();
    let running = true;
    const flushes = (async () => {
      while (running) await Promise.all([bump(), new Promise((resolve) => setTimeout(resolve, 20))]);
    })();
    try {
      return await measure();
    } finally {
      running = false;
      await flushes;
    }
  };
  const timings = async (label: string, path: string, ids = Array.from({ length: REQUESTS }, () => link.id)) => {
    const { ms, first } = await requests(
      ids.map((id) => `${base}/links/${id}${path}`),
      headers,
    );
    bodies.set(label, first.replace(/"to":\d+,/, '').replace(/"refreshedAt":\d+,/, ''));
    ms.sort((a, b) => a - b);
    const at = (p: number) => ms[Math.min(ms.length - 1, Math.floor(ms.length * p))]!.toFixed(2);
    return `| ${kind} | ${label} | ${at(0.5)} ms | ${at(0.99)} ms |`;
  };
  // Warm-up, not measured: JIT, pool connections and caches reach what a running server has.
  await requests(
    Array.from({ length: WARM_UP }, () => `${base}/links/${link.id}/stats?days=90`),
    headers,
  );
  const lines = [
    await timings('GET /links/{id}, for scale: an authenticated read of one row', ''),
    await timings(
      `JSON days=90, first read of each of ${FIRST_READS} links`,
      '/stats?days=90',
      others.map((o) => o.id),
    ),
    await timings('JSON days=90', '/stats?days=90'),
    await flushing(() => timings('JSON days=90, a flush every 20 ms changing the row of the hour', '/stats?days=90')),
    await timings('JSON days=30', '/stats?days=30'),
    await timings('JSON days=90, tz=Asia/Kolkata, source=q, bots=exclude', '/stats?days=90&tz=Asia/Kolkata&source=q&bots=exclude'),
    await timings('CSV days=90', '/stats?days=90&format=csv'),
  ];
  if (JSON.parse(bodies.get('JSON days=90')!).total !== VISITS) throw new Error(`unexpected answer: ${bodies.get('JSON days=90')!.slice(0, 300)}`);
  await app.close();
  await database.close();
  return lines;
}

console.log(`${REQUESTS} sequential requests per line after ${WARM_UP} unmeasured, over a real socket; load average ${os.loadavg()[0]!.toFixed(1)}`);
console.log('| database | request | p50 | p99 |\n|---|---|---|---|');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-stats-'));
console.log((await run('SQLite', `sqlite:${path.join(dir, 'stats.db')}`)).join('\n'));
fs.rmSync(dir, { recursive: true, force: true });
const pgDb = await postgresUrl('bench_stats');
if (pgDb) {
  console.log((await run('PostgreSQL', pgDb.url)).join('\n'));
  await pgDb.drop();
} else {
  console.log(`PostgreSQL: not reachable at ${PG_ADMIN}, skipped`);
}
