import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { commands } from '../src/cli/commands.js';
import { loadConfig } from '../src/config.js';
import { eachDatabase, freshDatabase, type TestDatabase } from './helpers/databases.js';

/** A real server process on a free port, with fast flushes and heartbeats so the test stays short. */
async function startServer(databaseUrl: string): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      ANALYTICS_FLUSH_INTERVAL_MS: '300',
      ANALYTICS_ROLLUP_INTERVAL_MS: '300',
      ANALYTICS_HEARTBEAT_INTERVAL_MS: '300',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/health`).catch(() => undefined))?.status === 200, 20_000);
  return { child, base };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

eachDatabase('recording across a crash', (kind) => {
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase(kind);
  });
  after(async () => db.drop());

  test('a restart after SIGKILL keeps every flushed visit and reports the lost window as a gap', async () => {
    const config = loadConfig({ DATABASE_URL: db.url });
    const run = (name: string, values: Record<string, string>) => commands[name]!.run(values, { database: db, config, now: Date.now() });
    const account = (await run('accounts create', { email: `crash-${kind}@example.test` })) as { id: string };
    const { key } = (await run('keys create', { account: account.id, scopes: 'links:write,analytics:read,links:read' })) as { key: string };
    const auth = { authorization: `Bearer ${key}` };

    let server = await startServer(db.url);
    const created = await fetch(`${server.base}/api/v1/links`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ target: 'https://example.org/crash' }),
    }).then((r) => r.json());
    const redirect = (n: number) => Promise.all(Array.from({ length: n }, () => fetch(`${server.base}/s/${created.slug}`, { redirect: 'manual' })));
    const statsOf = () => fetch(`${server.base}/api/v1/links/${created.id}/stats`, { headers: auth }).then((r) => r.json());

    await redirect(5);
    await waitFor(async () => (await statsOf()).total === 5, 10_000);
    await redirect(3);
    const killedAt = Date.now();
    server.child.kill('SIGKILL');
    await exited(server.child);

    server = await startServer(db.url);
    // The dead instance is noticed once it has missed three heartbeats.
    await waitFor(async () => (await statsOf()).gaps.length > 0, 15_000);
    const body = await statsOf();
    assert.ok(body.total >= 5 && body.total <= 8, `flushed visits are kept (total ${body.total})`);
    assert.equal(body.gaps.length, 1);
    assert.equal(body.gaps[0].reason, 'recording_unavailable');
    assert.ok(body.gaps[0].from <= killedAt && body.gaps[0].to >= killedAt, 'the gap covers the moment of the crash');

    // A graceful stop flushes what it holds before it closes the database.
    const before = body.total;
    await redirect(2);
    server.child.kill('SIGTERM');
    assert.equal(await exited(server.child), 0);
    const row = await db.db.selectFrom('links').select('visits').where('id', '=', created.id).executeTakeFirstOrThrow();
    assert.equal(Number(row.visits), before + 2);
  });
});
