import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { eachDatabase, freshDatabase, postgresSkip, type TestDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';
import { runCli, startServer, type ServerProcess } from '../helpers/processes.js';

const TOKEN = 'metrics-token-0123456789';

/** Reads one sample of the text exposition format, or undefined when absent. */
async function metric(h: Harness, name: string): Promise<number | undefined> {
  const res = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const line = (await res.text()).split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

const location = async (baseUrl: string, slug: string) => {
  const res = await fetch(`${baseUrl}/s/${slug}`, { redirect: 'manual' });
  await res.arrayBuffer();
  return res.status === 302 ? res.headers.get('location') : res.status;
};

eachDatabase('the redirect cache in /metrics', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { METRICS_TOKEN: TOKEN });
  });
  after(async () => h.close());

  test('hits, misses and the age of the last read of the change feed are shown, so a cache that stopped reading the feed is seen', async () => {
    const { key } = await h.account();
    const link = (await h.createLink({ target: 'https://example.org/metered' }, { key })).body;
    const misses = (await metric(h, 'shortlinks_redirect_cache_misses_total'))!;
    const hits = (await metric(h, 'shortlinks_redirect_cache_hits_total'))!;
    for (let i = 0; i < 3; i++) assert.equal(await location(h.baseUrl, link.slug), 'https://example.org/metered');
    assert.equal(await metric(h, 'shortlinks_redirect_cache_misses_total'), misses + 1);
    assert.equal(await metric(h, 'shortlinks_redirect_cache_hits_total'), hits + 2, 'the second and third redirects are hits');
    assert.equal(await metric(h, 'shortlinks_redirect_cache_entries'), 1);
    // The test clock stands still: the feed was read at start, at "now".
    assert.equal(await metric(h, 'shortlinks_redirect_cache_sync_age_seconds'), 0);
    h.clock.advance(30_000);
    assert.equal(await metric(h, 'shortlinks_redirect_cache_sync_age_seconds'), 30, 'no read since');
    assert.equal(await location(h.baseUrl, link.slug), 'https://example.org/metered');
    assert.equal(await metric(h, 'shortlinks_redirect_cache_sync_age_seconds'), 0, 'the first redirect after the TTL read the feed');
    if (kind === 'postgres') await until('the notices are listened to', async () => (await metric(h, 'shortlinks_redirect_cache_notices')) === 1);
    else assert.equal(await metric(h, 'shortlinks_redirect_cache_notices'), 0, 'SQLite has no notices');
  });
});

describe('a suspension by the admin CLI, in a process of its own, reaches a running server within REDIRECT_CACHE_TTL_MS (SQLite)', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  before(async () => {
    database = await freshDatabase('sqlite');
    await database.close();
    server = await startServer({ DATABASE_URL: database.url, REDIRECT_CACHE_TTL_MS: '1000' });
  });
  after(async () => {
    await server.stop();
    await database.drop().catch(() => {});
  });

  test('the link redirects once after a quiet spell longer than the TTL, then answers 404 soon after `links suspend`', async () => {
    const account = JSON.parse((await runCli(database.url, 'accounts', 'create', '--email', 'cli-suspend@example.test')).stdout);
    const key = JSON.parse((await runCli(database.url, 'keys', 'create', '--account', account.id, '--scopes', 'links:write')).stdout).key;
    const created = await fetch(`${server.baseUrl}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ target: 'https://example.org/abusive' }),
    });
    const link = await created.json();
    // Longer than the TTL without a redirect: the case where the cache once stopped reading the feed.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.equal(await location(server.baseUrl, link.slug), 'https://example.org/abusive');
    const suspended = await runCli(database.url, 'links', 'suspend', '--id', link.id);
    assert.equal(suspended.code, 0, suspended.stderr);
    await until('the suspended link stops redirecting', async () => (await location(server.baseUrl, link.slug)) === 404, 10_000);
  });
});

describe('two instances on one PostgreSQL database', { skip: postgresSkip }, () => {
  let database: TestDatabase;
  let a: Harness;
  let b: Harness;
  // A TTL of ten minutes: within a test, only the instances' notices can carry a change across.
  const env = { REDIRECT_CACHE_TTL_MS: '600000', METRICS_TOKEN: TOKEN };
  before(async () => {
    database = await freshDatabase('postgres');
    a = await Harness.start('postgres', env, database);
    b = await Harness.start('postgres', env, database);
    await until(
      'both instances listen',
      async () => (await metric(a, 'shortlinks_redirect_cache_notices')) === 1 && (await metric(b, 'shortlinks_redirect_cache_notices')) === 1,
    );
  });
  after(async () => {
    await a.close({ keepDatabase: true });
    await b.close();
  });

  test('an edit, a pause and a resume through one instance, and a suspension by the CLI, reach the other instance at once', async () => {
    const { key } = await a.account();
    const link = (await a.createLink({ target: 'https://example.org/v1' }, { key })).body;
    assert.equal(await location(b.baseUrl, link.slug), 'https://example.org/v1');
    const edited = await a.request('PATCH', `/links/${link.id}`, { key, body: { version: link.version, target: 'https://example.org/v2' } });
    await until('B redirects to the new target', async () => (await location(b.baseUrl, link.slug)) === 'https://example.org/v2', 5_000);
    const paused = await a.request('PATCH', `/links/${link.id}`, { key, body: { version: edited.body.version, status: 'paused' } });
    await until('B stops redirecting the paused link', async () => (await location(b.baseUrl, link.slug)) === 404, 5_000);
    await a.request('PATCH', `/links/${link.id}`, { key, body: { version: paused.body.version, status: 'active' } });
    await until('B redirects the resumed link', async () => (await location(b.baseUrl, link.slug)) === 'https://example.org/v2', 5_000);
    assert.equal((await runCli(database.url, 'links', 'suspend', '--id', link.id)).code, 0);
    await until(
      'A and B stop redirecting the suspended link',
      async () => (await location(a.baseUrl, link.slug)) === 404 && (await location(b.baseUrl, link.slug)) === 404,
      5_000,
    );
  });

  test('an instance whose listening connection is cut listens again, and changes made meanwhile are read from the feed', async () => {
    const { key } = await a.account();
    const link = (await a.createLink({ target: 'https://example.org/cut-1' }, { key })).body;
    assert.equal(await location(b.baseUrl, link.slug), 'https://example.org/cut-1');
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      // Every listening connection to this database ends (the call waits until they have), and the link
      // changes before the instances listen again, as a writer behind their backs: only the feed has it.
      await admin.query(`select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = current_database() and query ilike 'LISTEN %'`);
      await admin.query('begin');
      await admin.query(`update links set target = 'https://example.org/cut-2', version = version + 1 where id = $1`, [link.id]);
      await admin.query(`insert into link_changes (id, slug, changed_at) values ($1, $2, $3)`, [crypto.randomUUID(), link.slug, b.clock.now()]);
      await admin.query('commit');
    } finally {
      await admin.end();
    }
    await until('B listens again and reads what it missed', async () => (await location(b.baseUrl, link.slug)) === 'https://example.org/cut-2', 10_000);
    await until('B shows its notices back in /metrics', async () => (await metric(b, 'shortlinks_redirect_cache_notices')) === 1);
  });
});
