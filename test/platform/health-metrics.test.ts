import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { commands } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/platform/config.js';
import type { PressureReading } from '../../src/limits/load-shedding.js';
import { linkWithKey, UA } from '../helpers/analytics.js';
import { eachDatabase, freshDatabase, type DatabaseKind, type TestDatabase } from '../helpers/databases.js';
import { Harness, TestClock } from '../helpers/harness.js';
import { until } from '../helpers/load.js';
import { VERSION } from '../../src/platform/version.js';
import { sample } from '../helpers/metrics.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const LIVE = ['/health/live', '/livez'];
const READY = ['/health/ready', '/readyz', '/health'];

async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function assertReady(base: string) {
  for (const path of [...LIVE, ...READY]) {
    const res = await get(base, path);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    assert.deepEqual(JSON.parse(res.text), { status: 'ok', version: VERSION });
  }
}

async function assertUnready(base: string) {
  for (const path of LIVE) assert.equal((await get(base, path)).status, 200, path);
  for (const path of READY) {
    const res = await get(base, path);
    assert.equal(res.status, 503, path);
    assert.deepEqual(JSON.parse(res.text), { error: 'links_unavailable' });
    assert.equal(res.headers.get('retry-after'), '5');
  }
}

/**
 * Holds every connection of the app's own pool in an open transaction, so that a ping would wait: the
 * single SQLite connection, or PostgreSQL's pool of 10 (database.ts). Returns the release.
 */
async function holdDatabase(database: TestDatabase, kind: DatabaseKind): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const connections = kind === 'postgres' ? 10 : 1;
  let held = 0;
  const transactions = Array.from({ length: connections }, () =>
    database.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      held++;
      await released;
    }),
  );
  await until('the connections are held', () => held === connections, 20_000);
  return async () => {
    release();
    await Promise.all(transactions);
  };
}

eachDatabase('health endpoints', (kind) => {
  test('readiness answers from the background probe without a query of its own, and flips to 503 and back as the probe sees the database', async () => {
    const h = await Harness.start(kind, { METRICS_TOKEN: TOKEN });
    try {
      const { key } = await h.account();
      await assertReady(h.baseUrl);
      const release = await holdDatabase(h.database, kind);
      try {
        // Every connection is held: a per-request ping would wait here until the release.
        await assertReady(h.baseUrl);
        // On PostgreSQL an API request waits for a connection until the pool gives up: a storage error.
        // It is sent now, so that its wait and the probe's run side by side.
        const waiting = kind === 'postgres' ? h.request('GET', '/links', { key }) : undefined;
        await until('readiness answers 503', async () => (await get(h.baseUrl, '/readyz')).status === 503, 20_000);
        await assertUnready(h.baseUrl);
        if (waiting) assert.equal((await waiting).status, 503);
      } finally {
        await release();
      }
      await until('readiness answers 200 again', async () => (await get(h.baseUrl, '/readyz')).status === 200, 20_000);
      await assertReady(h.baseUrl);
      if (kind === 'postgres') {
        const text = (await get(h.baseUrl, '/metrics', { authorization: `Bearer ${TOKEN}` })).text;
        assert.ok(sample(text, 'shortlinks_database_errors_total', { operation: 'request' })! >= 1, text);
      }
    } finally {
      await h.close();
    }
  });

  test('with the database closed, liveness still answers 200 while readiness answers 503 and /metrics counts the failed probes', async () => {
    const database = await freshDatabase(kind);
    const h = await Harness.start(kind, { METRICS_TOKEN: TOKEN }, database);
    const metrics = async () => (await get(h.baseUrl, '/metrics', { authorization: `Bearer ${TOKEN}` })).text;
    try {
      assert.equal(sample(await metrics(), 'shortlinks_ready'), 1);
      assert.equal(sample(await metrics(), 'shortlinks_database_errors_total', { operation: 'probe' }), 0);
      await database.close();
      await until('readiness answers 503', async () => (await get(h.baseUrl, '/health/ready')).status === 503, 20_000);
      await assertUnready(h.baseUrl);
      const text = await metrics();
      assert.equal(sample(text, 'shortlinks_ready'), 0);
      assert.ok(sample(text, 'shortlinks_database_errors_total', { operation: 'probe' })! >= 1, text);
    } finally {
      await h.app.close();
      await database.drop().catch(() => {});
    }
  });
});

eachDatabase('metrics endpoint', (kind) => {
  test('/metrics is 404 not_found without METRICS_TOKEN, and 401 api_key_invalid without the right bearer token', async () => {
    const off = await Harness.start(kind);
    try {
      for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }] as Array<Record<string, string>>) {
        const res = await get(off.baseUrl, '/metrics', headers);
        assert.equal(res.status, 404);
        assert.deepEqual(JSON.parse(res.text), { error: 'not_found' });
      }
    } finally {
      await off.close();
    }
    const on = await Harness.start(kind, { METRICS_TOKEN: TOKEN });
    try {
      for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`, TOKEN]) {
        const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
        const res = await get(on.baseUrl, '/metrics', headers);
        assert.equal(res.status, 401, String(authorization));
        assert.deepEqual(JSON.parse(res.text), { error: 'api_key_invalid' });
      }
      const res = await get(on.baseUrl, '/metrics', { authorization: `Bearer ${TOKEN}` });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    } finally {
      await on.close();
    }
  });

  test('/metrics counts redirects by path and outcome, visits recorded and refused, flushes, rate-limited requests and event-loop delay', async () => {
    // One free visit a month: the second visit of the month is refused (a gap).
    const h = await Harness.start(kind, { METRICS_TOKEN: TOKEN, FREE_VISITS_PER_MONTH: '1', RATE_LIMIT_PER_IP: '3' });
    const metrics = async () => (await get(h.baseUrl, '/metrics', { authorization: `Bearer ${TOKEN}` })).text;
    try {
      const before = await metrics();
      assert.equal(sample(before, 'shortlinks_redirects_total', { kind: 's', outcome: 'redirected' }), 0);
      const link = await linkWithKey(h);
      // A person's browser: bots are never charged against the allowance.
      const person = { 'user-agent': UA.iphone };
      assert.equal((await get(h.baseUrl, `/s/${link.slug}`, person)).status, 302);
      assert.equal((await get(h.baseUrl, `/q/${link.slug}`, person)).status, 302);
      assert.equal((await get(h.baseUrl, '/s/no-such-slug')).status, 404);
      await h.app.visitRecorder.flush();
      // The network's burst of 3 is spent by the link's creation and these (the test's clock stands still).
      const statuses: number[] = [];
      while (!statuses.includes(429)) statuses.push((await h.request('GET', '/links', { key: link.key })).status);
      assert.deepEqual(statuses, [200, 200, 429]);

      const text = await metrics();
      assert.equal(sample(text, 'shortlinks_redirects_total', { kind: 's', outcome: 'redirected' }), 1);
      assert.equal(sample(text, 'shortlinks_redirects_total', { kind: 'q', outcome: 'redirected' }), 1);
      assert.equal(sample(text, 'shortlinks_redirects_total', { kind: 's', outcome: 'not_found' }), 1);
      assert.equal(sample(text, 'shortlinks_visits_recorded_total'), 1);
      assert.equal(sample(text, 'shortlinks_visits_dropped_total', { reason: 'refused' }), 1);
      assert.ok(sample(text, 'shortlinks_visit_flush_duration_seconds_count', { outcome: 'ok' })! >= 1, text);
      assert.equal(sample(text, 'shortlinks_rate_limited_total', { path: 'api' }), 1);
      assert.equal(sample(text, 'shortlinks_rate_limited_total', { path: 'redirect' }), 0);
      assert.equal(sample(text, 'shortlinks_database_errors_total', { operation: 'flush' }), 0);
      assert.notEqual(sample(text, 'nodejs_eventloop_lag_seconds'), undefined);
    } finally {
      await h.close();
    }
  });

  test('/metrics counts API and redirect requests shed under load', async () => {
    const database = await freshDatabase(kind);
    const pressure: PressureReading = { eventLoopDelayMs: 0, databaseLatencyMs: 0 };
    const env = { PUBLIC_URL: 'http://sho.rt', METRICS_TOKEN: TOKEN, SHED_EVENT_LOOP_DELAY_MS: '200', SHED_REDIRECT_EVENT_LOOP_DELAY_MS: '800' };
    const app: FastifyInstance = await buildApp({ config: loadConfig(env), database, now: new TestClock().now, pressure: () => pressure });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const context = { database, config: loadConfig(env), now: Date.now() };
      const account = (await commands['accounts create']!.run({ email: `${crypto.randomUUID()}@example.test` }, context)) as { id: string };
      const { key } = (await commands['keys create']!.run({ account: account.id, scopes: 'links:read' }, context)) as { key: string };
      pressure.eventLoopDelayMs = 500;
      assert.equal((await get(base, '/api/v1/links', { authorization: `Bearer ${key}` })).status, 503);
      pressure.eventLoopDelayMs = 900;
      assert.equal((await get(base, '/s/any-slug')).status, 503);
      assert.equal((await get(base, '/q/any-slug')).status, 503);
      const text = (await get(base, '/metrics', { authorization: `Bearer ${TOKEN}` })).text;
      assert.equal(sample(text, 'shortlinks_shed_total', { path: 'api' }), 1);
      assert.equal(sample(text, 'shortlinks_shed_total', { path: 'redirect' }), 2);
      assert.equal(sample(text, 'shortlinks_redirects_total', { kind: 'q', outcome: 'shed' }), 1);
    } finally {
      await app.close();
      await database.drop();
    }
  });
});
