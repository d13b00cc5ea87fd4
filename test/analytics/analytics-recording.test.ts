import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { UA, linkWithKey, stats, visit } from '../helpers/analytics.js';

eachDatabase('visit recording', (kind) => {
  let h: Harness;
  before(async () => {
    // Real client addresses come from X-Forwarded-For, so GeoIP sees public addresses.
    h = await Harness.start(kind, { TRUST_PROXY: '1' });
  });
  after(async () => h.close());

  test('a burst of parallel redirects through /s/ and /q/ is counted exactly, with the s/q split', async () => {
    const link = await linkWithKey(h);
    await Promise.all([visit(h, link.slug, 40, { path: 's' }), visit(h, link.slug, 25, { path: 'q' })]);
    const body = await stats(h, link.id, link.key);
    assert.equal(body.total, 65);
    const today = body.daily.at(-1);
    assert.deepEqual([today.date, today.total, today.s, today.q, today.bots], ['2026-11-15', 65, 40, 25, 0]);
    assert.equal(today.hours[12], 65, 'all in the hour of noon');
    const read = await h.request('GET', `/links/${link.id}`, { key: link.key });
    assert.equal(read.body.visits, 65);
  });

  test('HEAD requests are answered but not recorded', async () => {
    const link = await linkWithKey(h);
    const head = await h.request('HEAD', `/s/${link.slug}`);
    assert.equal(head.status, 302);
    await visit(h, link.slug, 3, { method: 'HEAD' });
    await visit(h, link.slug, 1);
    assert.equal((await stats(h, link.id, link.key)).total, 1);
  });

  test('a paused link records nothing, and records again once resumed', async () => {
    const link = await linkWithKey(h);
    const paused = await h.request('PATCH', `/links/${link.id}`, { key: link.key, body: { version: 1, status: 'paused' } });
    assert.equal(paused.status, 200);
    for (const path of ['s', 'q']) assert.equal((await h.request('GET', `/${path}/${link.slug}`)).status, 404);
    assert.equal((await stats(h, link.id, link.key)).total, 0);
    await h.request('PATCH', `/links/${link.id}`, { key: link.key, body: { version: 2, status: 'active' } });
    await visit(h, link.slug, 2);
    assert.equal((await stats(h, link.id, link.key)).total, 2);
  });

  test('devices, bots, referrers and countries are classified', async () => {
    const link = await linkWithKey(h);
    const from = (ip: string, ua: string, referer?: string) => ({ 'x-forwarded-for': ip, 'user-agent': ua, ...(referer ? { referer } : {}) });
    await visit(h, link.slug, 3, { headers: from('8.8.8.8', UA.iphone, 'https://WWW.Example.COM/some/path?q=1') });
    await visit(h, link.slug, 2, { headers: from('81.2.69.160', UA.windows, 'https://news.example.net/') });
    await visit(h, link.slug, 1, { headers: from('81.2.69.160', UA.ipad) });
    await visit(h, link.slug, 4, { headers: from('8.8.4.4', UA.googlebot, 'not a url') });
    const body = await stats(h, link.id, link.key);
    assert.equal(body.total, 10);
    assert.deepEqual(body.devices.slice(0, 4), [
      { device: 'bot', count: 4 },
      { device: 'mobile', count: 3 },
      { device: 'desktop', count: 2 },
      { device: 'tablet', count: 1 },
    ]);
    assert.deepEqual(body.countries, [
      { country: 'US', count: 7 },
      { country: 'GB', count: 3 },
    ]);
    assert.deepEqual(body.referrers, [
      { referrer: 'unknown', count: 4 },
      { referrer: 'example.com', count: 3 },
      { referrer: 'news.example.net', count: 2 },
      { referrer: 'direct', count: 1 },
    ]);
    assert.deepEqual(body.devices.slice(4), [
      { browser: 'Mobile Safari', count: 4 },
      { browser: 'other', count: 4 },
      { browser: 'Chrome', count: 2 },
      { os: 'iOS', count: 4 },
      { os: 'other', count: 4 },
      { os: 'Windows', count: 2 },
    ]);
    const csv = await h.request('GET', `/links/${link.id}/stats?format=csv`, { key: link.key });
    assert.match(csv.text, /\r\nvisits,2026-11-15,bot,yes,4,,,\r\n/);
    assert.match(csv.text, /\r\nvisits,2026-11-15,browser,Mobile Safari,4,,,\r\n/);
  });

  test('no client address is stored in any table', async () => {
    const link = await linkWithKey(h);
    const addresses = ['203.0.113.77', '81.2.69.142', '2001:db8:85a3::8a2e:370:7334'];
    for (const ip of addresses) await visit(h, link.slug, 2, { headers: { 'x-forwarded-for': ip, 'user-agent': UA.iphone } });
    await stats(h, link.id, link.key);
    const dump = await dumpAllTables(h);
    assert.ok(dump.includes(link.id), 'the dump reads the analytics tables');
    for (const ip of addresses) assert.ok(!dump.includes(ip), `${ip} found in the database`);
  });
});

/** Every row of every table, as text: SQLite through its catalog, PostgreSQL through information_schema. */
async function dumpAllTables(h: Harness): Promise<string> {
  const { sql } = await import('kysely');
  const db = h.database.db;
  const tables =
    h.database.dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows.map((r) => r.name)
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(db)).rows.map(
          (r) => r.name,
        );
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await sql`select * from ${sql.table(table)}`.execute(db);
    parts.push(JSON.stringify(rows.rows));
  }
  return parts.join('\n');
}
