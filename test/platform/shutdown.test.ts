import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, afterEach, before, describe, test } from 'node:test';
import { freshDatabaseUrl } from '../helpers/databases.js';
import { until } from '../helpers/load.js';
import { createLink, operatorKey } from '../helpers/operator.js';
import { startServer, type ServerProcess } from '../helpers/processes.js';

/** Read here, not from src/platform/version.ts: the answers must carry what package.json says. */
const VERSION = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const GRACE_MS = 4000;
const TIMER_SLACK_MS = 5;

/** The server's own log lines with this message, as pino wrote them. */
const logged = (server: ServerProcess, msg: string): Array<{ time: number; signal?: string }> =>
  server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { time: number; msg: string; signal?: string })
    .filter((line) => line.msg === msg);

async function get(server: ServerProcess, path: string, init: RequestInit = {}) {
  const res = await fetch(`${server.baseUrl}${path}`, { redirect: 'manual', ...init });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), connection: res.headers.get('connection'), body: await res.text() };
}

/** The grace as the log shows it: from "shutting down" to "closing the listener". */
/**
 * Milliseconds from the signal's log line to the listener's: a timer counts from the event loop's own
 * time, which may trail the clock the log reads by a millisecond or two, so the grace may read as a
 * hair shorter than it was set (TIMER_SLACK_MS).
 */
function graceTaken(server: ServerProcess): number {
  const [began] = logged(server, 'shutting down');
  const [closed] = logged(server, 'closing the listener');
  assert.ok(began && closed, server.output());
  return closed.time - began.time;
}

describe('shutdown for orchestrators', () => {
  let databaseUrl: string;
  let drop: () => Promise<void>;
  let key: string;
  before(async () => {
    ({ url: databaseUrl, drop } = await freshDatabaseUrl('sqlite'));
    ({ key } = await operatorKey(databaseUrl));
  });
  // A failed assertion leaves its server running: it is killed, so the file still ends.
  const servers: ServerProcess[] = [];
  afterEach(() => Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL'))));
  after(() => drop());

  const start = async () => {
    const server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    servers.push(server);
    return server;
  };

  test('health answers carry the version; after SIGTERM readiness answers 503 for SHUTDOWN_GRACE_MS while redirects, the API and liveness are still served; then the listener closes and the process exits 0', async () => {
    const server = await start();
    for (const path of ['/health/live', '/livez', '/health/ready', '/readyz', '/health']) {
      assert.deepEqual(JSON.parse((await get(server, path)).body), { status: 'ok', version: VERSION }, path);
    }
    const link = await createLink(server.baseUrl, key, 'https://example.org/grace');
    const auth = { headers: { authorization: `Bearer ${key}` } };
    server.child.kill('SIGTERM');
    await until('readiness answers 503', async () => (await get(server, '/health/ready')).status === 503);
    for (const path of ['/health/ready', '/readyz', '/health']) {
      const answer = await get(server, path);
      assert.deepEqual([answer.status, answer.body, answer.retryAfter], [503, '{"error":"links_unavailable"}', '5'], path);
    }
    assert.deepEqual(JSON.parse((await get(server, '/health/live')).body), { status: 'ok', version: VERSION });
    // Served, each on a connection that closes after its answer: a proxy's pooled connections go before the listener does.
    const redirect = await get(server, `/s/${link.slug}`);
    const read = await get(server, `/api/v1/links/${link.id}`, auth);
    assert.deepEqual([redirect.status, redirect.connection, read.status, read.connection], [302, 'close', 200, 'close']);
    await createLink(server.baseUrl, key, 'https://example.org/during-the-grace');
    assert.equal(await server.stop(), 0, server.output());
    assert.ok(graceTaken(server) >= GRACE_MS - TIMER_SLACK_MS, `the listener closed ${graceTaken(server)} ms after the signal`);
    await assert.rejects(fetch(`${server.baseUrl}/health/live`), 'nothing listens any more');
  });

  test('SIGINT shuts down the same way, and signals repeated during the grace (npm passes on the Ctrl-C the terminal sent) neither cut it short nor kill the process', async () => {
    const server = await start();
    server.child.kill('SIGINT');
    await until('readiness answers 503', async () => (await get(server, '/health/ready')).status === 503);
    server.child.kill('SIGINT');
    server.child.kill('SIGTERM');
    assert.equal((await get(server, '/health/live')).status, 200, 'still serving after the repeated signals');
    assert.equal(await server.stop(), 0, server.output());
    assert.deepEqual(
      logged(server, 'shutting down').map((line) => line.signal),
      ['SIGINT'],
    );
    assert.ok(graceTaken(server) >= GRACE_MS - TIMER_SLACK_MS, `the listener closed ${graceTaken(server)} ms after the signal`);
  });
});
