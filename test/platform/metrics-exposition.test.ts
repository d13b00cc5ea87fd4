import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { linkWithKey } from '../helpers/analytics.js';
import { eachDatabase, type DatabaseKind } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';
import { sample } from '../helpers/metrics.js';

const TOKEN = 'metrics-token-0123456789abcdef';

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

/** Debian's prometheus package has promtool; CI installs it (.ci/run), elsewhere its checks are skipped without it. */
function promtoolMissing(): string | false {
  const found = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (found.error === undefined && found.status === 0) return false;
  if (process.env.CI === 'true') throw new Error('promtool is missing, and CI requires it (apt-get install prometheus)');
  return 'promtool is not installed (Debian: apt-get install prometheus)';
}
const noPromtool = promtoolMissing();

eachDatabase('the metrics exposition', (kind: DatabaseKind) => {
  let h: Harness;
  const scrape = async () => {
    const res = await fetch(`${h.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    return res.text();
  };
  before(async () => {
    h = await Harness.start(kind, { METRICS_TOKEN: TOKEN, FREE_VISITS_PER_MONTH: '1' });
  });
  after(async () => h.close());

  test('after traffic of every kind, /metrics passes promtool check metrics', { skip: noPromtool }, async () => {
    const link = await linkWithKey(h);
    for (const path of [
      `/s/${link.slug}`,
      `/q/${link.slug}`,
      `/s/${link.slug}`,
      '/s/no-such-slug',
      `/s/%${link.slug.charCodeAt(0).toString(16)}${link.slug.slice(1)}`,
    ]) {
      // A person's browser: bots are never charged, so only people's visits can be refused.
      await h.request('GET', path, { headers: { 'user-agent': BROWSER } });
    }
    await h.request('GET', `/links/${link.id}`, { key: link.key });
    await h.request('GET', `/links/${crypto.randomUUID()}`, { key: link.key });
    await h.request('GET', '/links');
    await h.request('GET', '/nowhere');
    await h.request('POST', '/links', { key: link.key, body: { target: 'ftp://example.org' }, headers: { 'idempotency-key': crypto.randomUUID() } });
    await fetch(`${h.baseUrl}/`);
    await fetch(`${h.baseUrl}/health`);
    await h.app.visitRecorder.flush();

    const text = await scrape();
    const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(checked.status, 0, `promtool check metrics:\n${checked.stdout}${checked.stderr}`);
    assert.equal(`${checked.stdout}${checked.stderr}`.trim(), '');
    // The traffic shows up: redirects by outcome, visits, a flush, and the API's latency.
    assert.equal(sample(text, 'shortlinks_redirects_total', { kind: 's', outcome: 'redirected' }), 3);
    assert.ok(sample(text, 'shortlinks_visits_dropped_total', { reason: 'refused' })! >= 1, text);
    assert.ok(sample(text, 'shortlinks_visit_flush_duration_seconds_count', { outcome: 'ok' })! >= 1, text);
    assert.equal(sample(text, 'shortlinks_http_request_duration_seconds_count', { route: '/api/v1/links/:id', method: 'GET', status: '4xx' }), 1);
  });

  test('shortlinks_build_info names the version, Node.js and the database dialect', async () => {
    const text = await scrape();
    const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.equal(sample(text, 'shortlinks_build_info', { version, node_version: process.version, database: kind }), 1);
  });

  test('API and website latency is labelled by route pattern, method and status class, never by the raw URL', async () => {
    const link = await linkWithKey(h);
    assert.equal((await h.request('GET', `/links/${link.id}`, { key: link.key })).status, 200);
    assert.equal((await h.request('GET', `/links/${link.id}?unused=${link.slug}`, { key: link.key })).status, 200);
    assert.equal((await fetch(`${h.baseUrl}/app/links/${link.id}`)).status, 200);
    // A request is observed once its answer is written out, which may end after the client has it.
    const count = (text: string, route: string) => sample(text, 'shortlinks_http_request_duration_seconds_count', { route, method: 'GET', status: '2xx' }) ?? 0;
    let text = '';
    await until('both requests are observed', async () => count((text = await scrape()), '/api/v1/links/:id') >= 2 && count(text, '/app/*') >= 1, 20_000);
    assert.equal(text.includes(link.id), false, 'no link id in any label');
    assert.equal(text.includes(link.slug), false, 'no slug in any label');
  });

  test('redirects and health probes are counted elsewhere, not as API requests', async () => {
    const link = await linkWithKey(h);
    await h.request('GET', `/s/${link.slug}`);
    await h.request('GET', `/s/%${link.slug.charCodeAt(0).toString(16)}${link.slug.slice(1)}`);
    await fetch(`${h.baseUrl}/health/ready`);
    const text = await scrape();
    assert.doesNotMatch(text, /shortlinks_http_request_duration_seconds_count\{[^}]*route="\/(s|q|health|metrics)/);
  });

  test('database pool gauges show connections in use and the queries waiting for one', async () => {
    const before = await scrape();
    const max = sample(before, 'shortlinks_database_pool_max_connections')!;
    assert.equal(max, kind === 'postgres' ? 10 : 1);
    assert.equal(sample(before, 'shortlinks_database_pool_waiting'), 0);
    // Every connection held in an open transaction; the next query waits for one.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    const holds = Array.from({ length: max }, () =>
      h.database.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        held++;
        await released;
      }),
    );
    await until('every connection is held', () => held === max, 20_000);
    const waiting = sql`select 1`.execute(h.database.db);
    try {
      let text = '';
      await until('a query waits for a connection', async () => sample((text = await scrape()), 'shortlinks_database_pool_waiting')! >= 1, 20_000);
      assert.equal(sample(text, 'shortlinks_database_pool_connections', { state: 'in_use' }), max);
      assert.equal(sample(text, 'shortlinks_database_pool_connections', { state: 'idle' }), 0);
    } finally {
      release();
      await Promise.all([...holds, waiting]);
    }
    await until('nothing waits any more', async () => sample(await scrape(), 'shortlinks_database_pool_waiting') === 0, 20_000);
  });
});
