import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { commands } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/platform/config.js';
import { eachDatabase, freshDatabase, postgresSkip, type TestDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { startServer, type ServerProcess } from '../helpers/processes.js';

eachDatabase('refreshedAt of stats', (kind) => {
  let a: Harness;
  let b: Harness;
  before(async () => {
    // b stays silent while a's clock runs 30 s on; with the default 5 s heartbeat, a's own timer would
    // rightly reap b as dead (three missed heartbeats) if it fired in that window.
    const slowBeat = { ANALYTICS_HEARTBEAT_INTERVAL_MS: '600000' };
    a = await Harness.start(kind, slowBeat);
    b = await Harness.start(kind, slowBeat, a.database);
  });
  after(async () => {
    await b.close({ keepDatabase: true });
    await a.close();
  });

  test('is the time up to which every running instance made its visits durable, never later', async () => {
    const { key } = await a.account();
    const link = (await a.createLink({ target: 'https://example.org/f' }, { key })).body;
    const bDurable = b.clock.now();
    await b.app.visitRecorder.flush(); // b's visits are durable up to its clock
    a.clock.advance(30_000); // a runs on; b records nothing new and has not flushed since
    await a.request('GET', `/s/${link.slug}`);
    await a.app.visitRecorder.flush();
    const stats = await a.request('GET', `/links/${link.id}/stats?days=1`, { key });
    assert.equal(stats.body.total, 1);
    assert.equal(stats.body.refreshedAt, bDurable, 'b may still hold visits after its last flush');
    b.clock.advance(30_000);
    await b.app.visitRecorder.flush();
    const later = await a.request('GET', `/links/${link.id}/stats?days=1`, { key });
    assert.equal(later.body.refreshedAt, a.clock.now());
  });
});

/** What must be true of a visit within this long of its redirect, at ordinary load (docs/adr/0042). */
const FRESH_MS = 2000;

/** A server process with the default flush interval, so time is real and so are its timers. */
const serverOn = (db: TestDatabase) =>
  startServer({ DATABASE_URL: db.url, LOG_LEVEL: 'error', RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_ACCOUNT: '1000000' });

/** An account, a key and a link, made through `server`; `read` gets the link's JSON stats, CSV and Link.visits through any server. */
async function liveLink(db: TestDatabase, server: ServerProcess) {
  const config = loadConfig({ DATABASE_URL: db.url });
  const run = (name: string, values: Record<string, string>) => commands[name]!.run(values, { database: db, config, now: Date.now() });
  const account = (await run('accounts create', { email: `${crypto.randomUUID()}@example.test` })) as { id: string };
  const { key } = (await run('keys create', { account: account.id, scopes: 'links:write,analytics:read,links:read' })) as { key: string };
  const headers = { authorization: `Bearer ${key}` };
  const link = await fetch(`${server.baseUrl}/api/v1/links`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ target: 'https://example.org/live' }),
  }).then((r) => r.json());
  const get = (via: ServerProcess, path: string) => fetch(`${via.baseUrl}/api/v1/links/${link.id}${path}`, { headers });
  return {
    slug: link.slug as string,
    read: async (via: ServerProcess) => {
      const [json, csv, own] = await Promise.all([
        get(via, '/stats?days=1').then((r) => r.json()),
        get(via, '/stats?days=1&format=csv').then((r) => r.text()),
        get(via, '').then((r) => r.json()),
      ]);
      return { total: json.total as number, refreshedAt: json.refreshedAt as number, csv, visits: own.visits as number };
    },
  };
}

/**
 * Redirects once through `via` and reads through `reader` until the visit shows in the JSON total,
 * the CSV and Link.visits: true if that happened within FRESH_MS. Meanwhile refreshedAt must be
 * honest: once it has passed the redirect's answer, the visit is counted in the stats it came with.
 */
async function freshWithin(link: Awaited<ReturnType<typeof liveLink>>, via: ServerProcess, reader: ServerProcess, expected: number): Promise<boolean> {
  const redirectedAt = Date.now();
  assert.equal((await fetch(`${via.baseUrl}/s/${link.slug}`, { redirect: 'manual' })).status, 302);
  const answeredAt = Date.now();
  while (Date.now() - redirectedAt <= FRESH_MS) {
    const seen = await link.read(reader);
    const counted = seen.total === expected && seen.visits === expected && seen.csv.includes(`,source,s,${expected},`);
    // refreshedAt vouches for the answer it comes with; the CSV and the link come from requests of
    // their own, which may have read the database before the flush that answer saw committed.
    if (seen.refreshedAt >= answeredAt) assert.equal(seen.total, expected, `refreshedAt ${seen.refreshedAt} is after the redirect, which is not counted`);
    if (counted) return true;
    // Real time: what is tested is that the visit shows within FRESH_MS by the wall clock, not only that it shows.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

eachDatabase('stats in real time', (kind) => {
  let db: TestDatabase;
  let server: ServerProcess;
  before(async () => {
    db = await freshDatabase(kind);
    server = await serverOn(db);
  });
  after(async () => {
    await server.stop();
    await db.drop();
  });

  test('a redirect is in the JSON stats, the CSV and Link.visits within two seconds, and refreshedAt never runs ahead of them', async () => {
    const link = await liveLink(db, server);
    for (let n = 1; n <= 3; n++) assert.ok(await freshWithin(link, server, server, n), `visit ${n} counted within ${FRESH_MS} ms`);
  });
});

test(
  'two instances on one PostgreSQL database: a redirect through either is in the stats read through the other within two seconds',
  { skip: postgresSkip },
  async (t) => {
    const db = await freshDatabase('postgres');
    const [a, b] = await Promise.all([serverOn(db), serverOn(db)]);
    t.after(async () => {
      await Promise.all([a.stop(), b.stop()]);
      await db.drop();
    });
    const link = await liveLink(db, a);
    assert.ok(await freshWithin(link, b, a, 1), 'through b, read through a');
    assert.ok(await freshWithin(link, a, b, 2), 'through a, read through b');
    assert.ok(await freshWithin(link, b, b, 3), 'through b, read through b');
  },
);
