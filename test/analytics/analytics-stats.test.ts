import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { eachDatabase } from '../helpers/databases.js';
import { ALL_SCOPES, Harness } from '../helpers/harness.js';
import { linkWithKey, recordingStore, stats, visit } from '../helpers/analytics.js';
import type { Visit } from '../../src/analytics/ports.js';
import { utcDay } from '../../src/platform/time.js';

const DAY = 86_400_000;
const STATS_FIELDS = ['countries', 'daily', 'devices', 'from', 'gaps', 'referrers', 'refreshedAt', 'to', 'total'];

// Tests that move the clock run last and only forward: rate limits must never see time run backwards.
eachDatabase('stats API', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('stats JSON has exactly the documented fields and one daily entry per UTC day, zeros included', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 2, { path: 'q' });
    const body = await stats(h, link.id, link.key, '?days=7');
    assert.deepEqual(Object.keys(body).sort(), STATS_FIELDS);
    assert.equal(body.to, h.clock.now());
    assert.equal(body.from, Date.UTC(2026, 10, 9));
    assert.equal(body.refreshedAt, h.clock.now());
    assert.equal(body.daily.length, 7);
    const zeros = new Array(24).fill(0);
    assert.deepEqual(body.daily[0], { date: '2026-11-09', total: 0, s: 0, q: 0, bots: 0, visitors: 0, hours: zeros });
    assert.deepEqual(body.daily[6], { date: '2026-11-15', total: 2, s: 0, q: 2, bots: 0, visitors: 1, hours: zeros.map((_, h) => (h === 12 ? 2 : 0)) });
    assert.deepEqual(body.devices, [
      { device: 'mobile', count: 2 },
      { browser: 'Mobile Safari', count: 2 },
      { os: 'iOS', count: 2 },
    ]);
    assert.deepEqual(body.gaps, []);
    const defaults = await stats(h, link.id, link.key);
    assert.equal(defaults.daily.length, 30);
    assert.equal((await stats(h, link.id, link.key, '?days=90')).daily.length, 90);
  });

  test('referrers list the top 50 by count and sum the rest into "other"', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 3, { headers: { referer: 'https://top.example/' } });
    for (let i = 0; i < 55; i++) await visit(h, link.slug, 1, { headers: { referer: `https://site${String(i).padStart(2, '0')}.example/` } });
    const body = await stats(h, link.id, link.key);
    assert.equal(body.referrers.length, 51);
    assert.deepEqual(body.referrers[0], { referrer: 'top.example', count: 3 });
    assert.deepEqual(body.referrers[1], { referrer: 'site00.example', count: 1 });
    assert.deepEqual(body.referrers[50], { referrer: 'other', count: 6 });
  });

  test('referrer hosts named like members of Object.prototype are counted like any other, in JSON and CSV', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 2, { headers: { referer: 'https://constructor/' } });
    await visit(h, link.slug, 1, { headers: { referer: 'https://__proto__/' } });
    await stats(h, link.id, link.key);
    // A second roll-up adds to the stored row of the day.
    await visit(h, link.slug, 1, { headers: { referer: 'https://constructor/' } });
    await visit(h, link.slug, 1, { headers: { referer: 'https://__proto__/' } });
    const body = await stats(h, link.id, link.key);
    assert.deepEqual(body.referrers, [
      { referrer: 'constructor', count: 3 },
      { referrer: '__proto__', count: 2 },
    ]);
    const csv = await h.request('GET', `/links/${link.id}/stats?format=csv`, { key: link.key });
    assert.match(csv.text, /,referrer,__proto__,2,/);
    assert.match(csv.text, /,referrer,constructor,3,/);
  });

  test('CSV has the documented header, one row per day and dimension value, and a named attachment', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 2);
    await h.app.visitRecorder.flush();
    const res = await h.request('GET', `/links/${link.id}/stats?format=csv&days=3`, { key: link.key });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="stats-${link.slug}-2026-11-13-2026-11-15.csv"`);
    assert.deepEqual(res.text.split('\r\n'), [
      'kind,date,dimension,value,count,gap_from,gap_to,gap_reason',
      'visits,2026-11-15,bot,no,2,,,',
      'visits,2026-11-15,browser,Mobile Safari,2,,,',
      'visits,2026-11-15,country,unknown,2,,,',
      'visits,2026-11-15,device,mobile,2,,,',
      'visits,2026-11-15,hour,12,2,,,',
      'visits,2026-11-15,os,iOS,2,,,',
      'visits,2026-11-15,referrer,direct,2,,,',
      'visits,2026-11-15,source,s,2,,,',
      'visits,2026-11-15,visitors,unique,1,,,',
      '',
    ]);
  });

  test('days outside 1..90 and unknown formats or parameters are 400 invalid_request', async () => {
    const link = await linkWithKey(h);
    for (const query of [
      'days=0',
      'days=91',
      'days=1.5',
      'days=abc',
      'days=-1',
      'format=xml',
      'format=',
      'other=1',
      'source=x',
      'source=',
      'bots=no',
      'tz=Mars/Olympus',
      'tz=%2B05:30',
      'tz=',
      'tz=Europe/Berlin&tz=UTC',
    ]) {
      const res = await h.request('GET', `/links/${link.id}/stats?${query}`, { key: link.key });
      assert.equal(res.status, 400, query);
      assert.deepEqual(res.body, { error: 'invalid_request' });
    }
    assert.equal((await h.request('GET', `/links/not-a-uuid/stats`, { key: link.key })).status, 400);
  });

  test('a day outside the window is not counted', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 1);
    await h.app.visitRecorder.flush();
    h.clock.advance(2 * DAY);
    const body = await stats(h, link.id, link.key, '?days=2');
    assert.equal(body.total, 0);
    assert.equal((await stats(h, link.id, link.key, '?days=3')).total, 1);
  });

  test('stats need analytics:read, or the trial token of that very link', async () => {
    const link = await linkWithKey(h);
    const noScope = await h.keyFor(link.accountId, 'links:read');
    assert.deepEqual((await h.request('GET', `/links/${link.id}/stats`, { key: noScope })).body, { error: 'api_scope_required' });
    assert.equal((await h.request('GET', `/links/${link.id}/stats`)).status, 401);
    const stranger = await h.account(ALL_SCOPES);
    assert.equal((await h.request('GET', `/links/${link.id}/stats`, { key: stranger.key })).status, 404);
    const trial = await h.createLink({ target: 'https://example.org/trial' });
    const headers = { 'x-service-trial-token': trial.body.trialToken };
    await visit(h, trial.body.slug, 2);
    await h.app.visitRecorder.flush();
    const own = await h.request('GET', `/links/${trial.body.id}/stats`, { headers });
    assert.equal(own.status, 200);
    assert.equal(own.body.total, 2);
    assert.equal((await h.request('GET', `/links/${link.id}/stats`, { headers })).status, 403);
    h.clock.advance(8 * DAY);
    assert.deepEqual((await h.request('GET', `/links/${trial.body.id}/stats`, { headers })).body, { error: 'link_expired' });
  });

  test('the OpenAPI document describes the stats shapes', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body;
    const op = doc.paths['/links/{id}/stats'].get;
    // Shapes may be components, referred to by $ref.
    const resolve = (schema: any) => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').at(-1)] : schema);
    const json = resolve(op.responses['200'].content['application/json'].schema);
    assert.deepEqual(Object.keys(json.properties).sort(), STATS_FIELDS);
    assert.equal(resolve(json.properties.daily.items).additionalProperties, false);
    assert.ok(op.responses['200'].content['text/csv']);
  });
});

eachDatabase('stats of earlier days', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('visits of an earlier day that a flush adds later are counted', async () => {
    const link = await linkWithKey(h);
    const read = async () => (await h.request('GET', `/links/${link.id}/stats?days=7`, { key: link.key })).body;
    // A real failure, not a mock: the flush's first table is renamed away, so the visits wait in memory.
    await sql`alter table visit_days rename to visit_days_away`.execute(h.database.db);
    try {
      await visit(h, link.slug, 2);
      h.clock.advance(3 * DAY);
      await visit(h, link.slug, 1);
      const before = await read();
      assert.equal(before.total, 0);
    } finally {
      await sql`alter table visit_days_away rename to visit_days`.execute(h.database.db);
    }
    await h.app.visitRecorder.flush();
    const after = await read();
    assert.equal(after.total, 3);
    assert.deepEqual(
      after.daily.filter((d: { total: number }) => d.total > 0).map((d: { date: string; total: number; s: number }) => [d.date, d.total, d.s]),
      [
        ['2026-11-15', 2, 2],
        ['2026-11-18', 1, 1],
      ],
    );
    assert.deepEqual(after.devices[0], { device: 'mobile', count: 3 });
  });

  test("a day read before is read again when a writer's row of it changes: another instance's, then the same one's again", async () => {
    const link = await linkWithKey(h);
    const day = h.clock.now();
    await visit(h, link.slug, 1);
    h.clock.advance(DAY);
    const read = async () => (await stats(h, link.id, link.key, '?days=7')).daily.find((d: { date: string }) => d.date === utcDay(day));
    assert.equal((await read()).total, 1);
    // Another instance, a writer of its own, flushes late visits of that day (it was busy or cut off).
    const other = recordingStore(h.database);
    const late = (n: number): Visit[] =>
      Array.from({ length: n }, (_, i) => ({
        link: { id: link.id, accountId: link.accountId },
        time: day + 60_000,
        source: 'q',
        agent: { device: 'desktop', browser: 'Firefox', os: 'Linux', bot: false },
        country: 'FR',
        referrer: 'direct',
        visitor: Math.imul(i + 1, 0x9e3779b1) >>> 0,
      }));
    const flush = (visits: Visit[]) => other.flush({ instanceId: 'other', startedAt: day, now: h.clock.now(), visits, dropped: [], limits: h.config.limits });
    await flush(late(2));
    assert.deepEqual(await read().then((d) => [d.total, d.s, d.q]), [3, 1, 2]);
    await flush(late(1));
    assert.deepEqual(await read().then((d) => [d.total, d.s, d.q]), [4, 1, 3], "the other writer's row, rewritten, is read again");
    const body = await stats(h, link.id, link.key, '?days=7');
    assert.deepEqual(body.countries, [
      { country: 'FR', count: 3 },
      { country: 'unknown', count: 1 },
    ]);
  });
});
