/**
 * npm run bench:stats — GET /links/{id}/stats on a link with 10 million recorded visits over 90 days,
 * on SQLite and on PostgreSQL (when reachable at BENCH_POSTGRES_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres). The rollups are loaded directly, as ninety days of
 * flushes would have left them: one row per day holding 50 countries, 200 referrers, 20 browsers and
 * the other dimensions.
 *
 * Cached: counts unchanged since the last read (same roll-up generation). Uncached: the generation is
 * bumped before each request, as a roll-up that changed any count does, so the real read path sums
 * the rollups again. Uncached reads are measured from daily rows only (what the service did before
 * roll-ups wrote span rows), then with span rows loaded too, as roll-ups now leave them
 * (src/analytics/store/rollup-spans.ts). The clock is
 * set back to the day of the last four weeks whose 90-day window needs the most rows with spans.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { commands } from '../src/cli/commands.js';
import { loadConfig } from '../src/platform/config.js';
import { DAY_MS, utcDay } from '../src/platform/time.js';
import { analyticsDb } from '../src/analytics/store/analytics-schema.js';
import { openDatabase, type Database } from '../src/platform/database/database.js';
import { packDays, packSpans } from '../src/analytics/store/rollup-counts.js';
import { PG_ADMIN, postgresUrl } from './postgres.js';
import { dayNumber, readPlan, spanStart, SPAN_DIMENSIONS, SPAN_LENGTHS, SPANS_MARKER, SPANS_THROUGH, type SpanTables } from '../src/analytics/store/rollup-spans.js';

const VISITS = 10_000_000;
const DAYS = 90;
const REQUESTS = 400;
const WARM_UP = 200;

/** One day's visits split over the values of each dimension with a long-tailed (1/rank) weighting. */
function split(total: number, values: string[]): [string, number][] {
  const weights = values.map((_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((total * w) / sum));
  counts[0]! += total - counts.reduce((a, b) => a + b, 0);
  return values.map((v, i) => [v, counts[i]!]);
}

type Row = { link_id: string; dimension: string; day: string; value: string; count: number };

async function seed(database: Database, linkId: string, now: number): Promise<Row[]> {
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
  const rows: Row[] = [];
  for (let d = 0; d < DAYS; d++) {
    const day = utcDay(now - d * DAY_MS);
    const visits = d === 0 ? VISITS - perDay * (DAYS - 1) : perDay;
    for (const [dimension, values] of Object.entries(dims)) {
      for (const [value, count] of split(visits, values)) rows.push({ link_id: linkId, dimension, day, value, count });
    }
  }
  // As the roll-ups keep them: one row per day with every value's count (rollup-counts.ts).
  const packed = packDays(rows);
  for (let i = 0; i < packed.length; i += 50) await db.insertInto('visit_rollups').values(packed.slice(i, i + 50)).execute();
  await db.updateTable('links').set({ visits: VISITS }).where('id', '=', linkId).execute();
  const gap = (from: number) => ({ id: crypto.randomUUID(), link_id: linkId, reason: 'daily_ceiling_reached', from_ms: from, to_ms: from + 3_600_000 });
  await db.insertInto('visit_gaps').values([gap(now - 10 * DAY_MS), gap(now - 40 * DAY_MS)]).execute();
  // Migration 0007 marks spans complete on a fresh database; daily rows loaded directly have none yet,
  // so the first lines read daily rows only (as the service did before roll-ups wrote spans).
  await db.deleteFrom('analytics_state').where('name', '=', SPANS_MARKER).execute();
  return rows;
}

/**
 * The span rows the roll-ups would have left for these daily rows: every day but today, which is folded
 * into the spans once it is over (SPANS_THROUGH), and the marker.
 */
async function seedSpans(database: Database, rows: Row[], now: number): Promise<void> {
  const through = dayNumber(utcDay(now)) - 1;
  const sums = new Map<string, { link_id: string; dimension: string; span: number; start_day: string; value: string; count: number }>();
  for (const r of rows.filter((r) => SPAN_DIMENSIONS.includes(r.dimension) && dayNumber(r.day) <= through)) {
    for (const span of SPAN_LENGTHS) {
      const start_day = spanStart(r.day, span);
      const key = `${r.dimension}|${r.value}|${span}|${start_day}`;
      const sum = sums.get(key) ?? sums.set(key, { link_id: r.link_id, dimension: r.dimension, span, start_day, value: r.value, count: 0 }).get(key)!;
      sum.count += r.count;
    }
  }
  const db = analyticsDb(database.db).withTables<SpanTables>();
  const spans = packSpans([...sums.values()]);
  for (let i = 0; i < spans.length; i += 50) await db.insertInto('visit_rollup_spans').values(spans.slice(i, i + 50)).execute();
  // The service's first roll-up may have started the spans at today already: replaced.
  await db
    .insertInto('analytics_state')
    .values([{ name: SPANS_MARKER, value: 1 }, { name: SPANS_THROUGH, value: through }])
    .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
    .execute();
}

/** Rows (one per day or span, each with 255 values of country, device and referrer) a 90-day window to `now` reads with spans. */
function readsOf(now: number): number {
  const plan = readPlan(utcDay(now - (DAYS - 1) * DAY_MS), utcDay(now), dayNumber(utcDay(now)) - 1);
  let reads = plan.spans.reduce((n, s) => n + s.starts.length, 0);
  // Today is read from daily rows; days after the window have none.
  for (const d of plan.days) for (let t = Date.parse(d.from); t <= Date.parse(d.to) && t <= now; t += DAY_MS) reads++;
  return reads;
}

/** The day of the last four weeks (this hour of it) whose 90-day window needs the most span reads. */
function worstNow(): number {
  const candidates = Array.from({ length: 28 }, (_, i) => Date.now() - i * DAY_MS);
  return candidates.reduce((worst, t) => (readsOf(t) > readsOf(worst) ? t : worst));
}

async function run(kind: string, url: string, shift: number): Promise<string[]> {
  const database = await openDatabase(url);
  const config = loadConfig({ DATABASE_URL: url, RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_ACCOUNT: '1000000', LOG_LEVEL: 'error' });
  const now = () => Date.now() - shift;
  const ctx = { database, config, now: now() };
  const account = (await commands['accounts create']!.run({ email: `stats-${ctx.now}@example.test` }, ctx)) as { id: string };
  const { key } = (await commands['keys create']!.run({ account: account.id, scopes: 'links:write,analytics:read' }, ctx)) as { key: string };
  const app = await buildApp({ config, database, now });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;
  const headers = { authorization: `Bearer ${key}` };
  const link = await fetch(`${base}/links`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ target: 'https://example.org/popular' }),
  }).then((r) => r.json());
  const rows = await seed(database, link.id, now());
  // A 90-day-old table has been vacuumed and analysed by autovacuum: index-only scans and statistics.
  const settle = () => (database.dialect === 'postgres' ? sql`vacuum analyze`.execute(database.db) : undefined);
  await settle();
  // Uncached: a roll-up changed counts since the last read (the generation moves), so counts are summed again.
  const bump = () =>
    analyticsDb(database.db)
      .insertInto('analytics_state')
      .values({ name: 'generation', value: 1 })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: sql<number>`analytics_state.value + 1` }))
      .execute();
  const bodies = new Map<string, string>();
  const timings = async (label: string, query: string, uncached = false) => {
    const ms: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      if (uncached) await bump();
      const start = performance.now();
      const res = await fetch(`${base}/links/${link.id}/stats${query}`, { headers });
      const body = await res.text();
      ms.push(performance.now() - start);
      if (i === 0) bodies.set(label, body.replace(/"to":\d+,/, ''));
    }
    ms.sort((a, b) => a - b);
    const at = (p: number) => ms[Math.min(ms.length - 1, Math.floor(ms.length * p))]!.toFixed(2);
    return `| ${kind} | ${label} | ${at(0.5)} ms | ${at(0.99)} ms |`;
  };
  // Warm-up, not measured: JIT, pool connections and caches reach what a running server has.
  for (let i = 0; i < WARM_UP; i++) await fetch(`${base}/links/${link.id}/stats?days=90`, { headers }).then((r) => r.text());
  const lines = [
    await timings('JSON days=90, cached', '?days=90'),
    await timings('JSON days=90, uncached, daily rows only', '?days=90', true),
    await timings('JSON days=30, uncached, daily rows only', '?days=30', true),
  ];
  await seedSpans(database, rows, now());
  await settle();
  lines.push(
    await timings('JSON days=90, uncached, with spans', '?days=90', true),
    await timings('JSON days=30, uncached, with spans', '?days=30', true),
    await timings('CSV days=90 (every row, never cached)', '?days=90&format=csv'),
  );
  if (JSON.parse(bodies.get('JSON days=90, cached')!).total !== VISITS) throw new Error('unexpected total');
  for (const days of [90, 30]) {
    if (bodies.get(`JSON days=${days}, uncached, daily rows only`) !== bodies.get(`JSON days=${days}, uncached, with spans`)) {
      throw new Error(`days=${days}: the answer from spans differs from the answer from daily rows`);
    }
  }
  await app.close();
  await database.close();
  return lines;
}


const shift = Date.now() - worstNow();
const plan = readPlan(utcDay(Date.now() - shift - (DAYS - 1) * DAY_MS), utcDay(Date.now() - shift), dayNumber(utcDay(Date.now() - shift)) - 1);
console.log(`${REQUESTS} sequential requests per line after ${WARM_UP} unmeasured, over a real socket; load average ${os.loadavg()[0]!.toFixed(1)}`);
console.log(`clock set back ${Math.round(shift / DAY_MS)} days: with spans the 90-day window takes ${readsOf(Date.now() - shift)} reads of days or spans: ${JSON.stringify(plan)}`);
console.log('| database | request | p50 | p99 |\n|---|---|---|---|');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-stats-'));
console.log((await run('SQLite', `sqlite:${path.join(dir, 'stats.db')}`, shift)).join('\n'));
fs.rmSync(dir, { recursive: true, force: true });
const pgDb = await postgresUrl('bench_stats');
if (pgDb) {
  console.log((await run('PostgreSQL', pgDb.url, shift)).join('\n'));
  await pgDb.drop();
} else {
  console.log(`PostgreSQL: not reachable at ${PG_ADMIN}, skipped`);
}
