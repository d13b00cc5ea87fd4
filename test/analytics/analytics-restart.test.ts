import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { commands } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/platform/config.js';
import { eachDatabase, freshDatabase, postgresSkip, type TestDatabase } from '../helpers/databases.js';
import { until } from '../helpers/load.js';
import { startServer, type ServerProcess } from '../helpers/processes.js';

const FLUSH_MS = 300;
/**
 * Beside a running instance: long enough that a restart is up before the running one counts the dead
 * instance as dead (three missed heartbeats), so that the gap can end where the restart began recording.
 */
const HEARTBEAT_MS = 2000;
const SILENCE_MS = 3 * Math.max(HEARTBEAT_MS, FLUSH_MS);
/**
 * A lone instance: only its restart can count it as dead, and the gap then ends at the restart's start
 * however short the silence; a short one lets the restart report the gap as soon as it is up.
 */
const LONE_HEARTBEAT_MS = 300;

/** Every server started here: those still running when a test fails are killed, so that the file ends. */
const started: ServerProcess[] = [];
after(() => Promise.all(started.map((server) => server.stop('SIGKILL'))));

/** A real server process with fast flushes so the test stays short. */
const serverOn = async (db: TestDatabase, heartbeatMs = HEARTBEAT_MS) => {
  const server = await startServer({
    DATABASE_URL: db.url,
    LOG_LEVEL: 'error',
    ANALYTICS_FLUSH_INTERVAL_MS: String(FLUSH_MS),
    ANALYTICS_HEARTBEAT_INTERVAL_MS: String(heartbeatMs),
    // The test polls stats until a state is reached: the API's rate limits are not what it tests.
    RATE_LIMIT_PER_IP: '1000000',
    RATE_LIMIT_PER_ACCOUNT: '1000000',
  });
  started.push(server);
  return server;
};

interface Gap {
  from: number;
  to: number;
  reason: string;
}

/** An account, a link, and helpers to redirect through a given server and read the link's stats. */
async function linkOn(db: TestDatabase, server: ServerProcess) {
  const config = loadConfig({ DATABASE_URL: db.url });
  const run = (name: string, values: Record<string, string>) => commands[name]!.run(values, { database: db, config, now: Date.now() });
  const account = (await run('accounts create', { email: `${crypto.randomUUID()}@example.test` })) as { id: string };
  const { key } = (await run('keys create', { account: account.id, scopes: 'links:write,analytics:read,links:read' })) as { key: string };
  const auth = { authorization: `Bearer ${key}` };
  const created = await fetch(`${server.baseUrl}/api/v1/links`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ target: 'https://example.org/crash' }),
  }).then((r) => r.json());
  return {
    id: created.id as string,
    redirect: (via: ServerProcess, n: number) =>
      Promise.all(Array.from({ length: n }, () => fetch(`${via.baseUrl}/s/${created.slug}`, { redirect: 'manual' }))),
    stats: (via: ServerProcess): Promise<{ total: number; gaps: Gap[] }> =>
      fetch(`${via.baseUrl}/api/v1/links/${created.id}/stats`, { headers: auth }).then((r) => r.json()),
  };
}

/** The recording instances' rows, oldest start first. */
const instances = (db: TestDatabase) => db.db.selectFrom('recorder_instances').selectAll().orderBy('started_at').execute();

/** Kills a server started at `spawnedAt` and returns its recording instance's last row (its heartbeat and durable point). */
async function kill(db: TestDatabase, server: ServerProcess, spawnedAt: number) {
  await server.stop('SIGKILL');
  const rows = (await instances(db)).filter((row) => Number(row.started_at) >= spawnedAt);
  assert.equal(rows.length, 1, 'one recording instance per process');
  return rows[0]!;
}

eachDatabase('recording across a crash', (kind) => {
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase(kind);
  });
  after(async () => db.drop());

  test('after a SIGKILL and a restart the gap runs from the last heartbeat to the restart, and every flushed visit is kept', async () => {
    const spawnedAt = Date.now();
    let server = await serverOn(db, LONE_HEARTBEAT_MS);
    const link = await linkOn(db, server);
    await link.redirect(server, 5);
    await until('the 5 visits are counted', async () => (await link.stats(server)).total === 5, 10_000);
    await link.redirect(server, 3);
    const killedAt = Date.now();
    const dead = await kill(db, server, spawnedAt);

    server = await serverOn(db, LONE_HEARTBEAT_MS);
    const firstVisitAfterRestart = Date.now();
    await link.redirect(server, 2);
    // The dead instance is noticed once it has missed three heartbeats.
    await until('the stats show a gap', async () => (await link.stats(server)).gaps.length > 0, 20_000);
    await until('at least 7 visits are counted', async () => (await link.stats(server)).total >= 7, 10_000);
    const body = await link.stats(server);
    assert.ok(body.total >= 7 && body.total <= 10, `flushed visits and those after the restart are kept (total ${body.total})`);
    assert.equal(body.gaps.length, 1);
    const [gap] = body.gaps;
    const restarted = (await instances(db)).find((row) => row.id !== dead.id)!;
    assert.ok(gap!.to <= firstVisitAfterRestart, 'the gap ends at or before the first visit recorded after the restart');
    assert.ok(gap!.from <= killedAt && gap!.to >= killedAt, 'the gap covers the moment of the crash');
    assert.deepEqual(gap, { from: Number(dead.flushed_to), to: Number(restarted.started_at), reason: 'recording_unavailable' });

    // A graceful stop flushes what it holds before it closes the database.
    const before = body.total;
    await link.redirect(server, 2);
    assert.equal(await server.stop('SIGTERM'), 0);
    const row = await db.db.selectFrom('links').select('visits').where('id', '=', link.id).executeTakeFirstOrThrow();
    assert.equal(Number(row.visits), before + 2);
  });
});

test('several instances on PostgreSQL: one killed while another runs', { skip: postgresSkip }, async (t) => {
  let db: TestDatabase;
  let running: ServerProcess;
  t.before(async () => {
    db = await freshDatabase('postgres');
    running = await serverOn(db);
  });
  t.after(async () => {
    await running.stop('SIGTERM');
    await db.drop();
  });

  await t.test('its gap ends where it must have died: its last heartbeat plus the silence that marks death', async () => {
    const spawnedAt = Date.now();
    const victim = await serverOn(db);
    const link = await linkOn(db, running);
    await Promise.all([link.redirect(running, 3), link.redirect(victim, 3)]);
    await until('the 6 visits are counted', async () => (await link.stats(running)).total === 6, 10_000);
    await link.redirect(victim, 2);
    const killedAt = Date.now();
    const dead = await kill(db, victim, spawnedAt);
    await link.redirect(running, 2);
    await until('the stats show a gap', async () => (await link.stats(running)).gaps.length > 0, 20_000);
    await until('at least 8 visits are counted', async () => (await link.stats(running)).total >= 8, 10_000);
    const { gaps } = await link.stats(running);
    assert.deepEqual(gaps, [{ from: Number(dead.flushed_to), to: Number(dead.beat_at) + SILENCE_MS, reason: 'recording_unavailable' }]);
    assert.ok(gaps[0]!.from <= killedAt && gaps[0]!.to >= killedAt, 'the gap covers the moment of the crash');
  });

  await t.test('its gap ends where its restart began recording', async () => {
    const spawnedAt = Date.now();
    let victim = await serverOn(db);
    const link = await linkOn(db, running);
    await link.redirect(victim, 3);
    await until('the 3 visits are counted', async () => (await link.stats(running)).total === 3, 10_000);
    await link.redirect(victim, 2);
    const killedAt = Date.now();
    const dead = await kill(db, victim, spawnedAt);
    victim = await serverOn(db);
    const firstVisitAfterRestart = Date.now();
    await link.redirect(victim, 2);
    const ofDead = async () => (await link.stats(running)).gaps.find((gap) => gap.from === Number(dead.flushed_to));
    await until('the stats show the gap of the killed instance', async () => (await ofDead()) !== undefined, 20_000);
    const gap = (await ofDead())!;
    assert.ok(gap.to <= firstVisitAfterRestart, 'the gap ends at or before the first visit recorded after the restart');
    assert.ok(gap.to >= killedAt, 'the gap covers the moment of the crash');
    const restarted = (await instances(db)).find((row) => Number(row.started_at) > Number(dead.started_at))!;
    assert.deepEqual(gap, { from: Number(dead.flushed_to), to: Number(restarted.started_at), reason: 'recording_unavailable' });
    await until('at least 5 visits are counted', async () => (await link.stats(running)).total >= 5, 10_000);
    assert.equal(await victim.stop('SIGTERM'), 0);
  });
});
