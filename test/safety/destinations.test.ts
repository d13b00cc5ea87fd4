import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { eachDatabase, freshDatabase, postgresSkip, type TestDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';

const location = async (h: Harness, slug: string) => {
  const res = await h.request('GET', `/s/${slug}`);
  return res.status === 302 ? res.headers.get('location') : res.status;
};

eachDatabase('the operator’s blocklist of destinations', (kind) => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await Harness.start(kind);
    key = (await h.account()).key;
  });
  after(async () => h.close());

  test('a blocked domain and its subdomains are refused at creation (accounts and trials) and at edit; a lookalike is not', async () => {
    assert.deepEqual(await h.cli('blocklist add', { domain: 'Evil.Example.' }), { domain: 'evil.example', blocked: true, suspended: 0 });
    for (const target of ['https://evil.example/login', 'http://WWW.evil.example/', 'https://a.b.evil.example:8443/x']) {
      const res = await h.createLink({ target }, { key });
      assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }], target);
      const trial = await h.createLink({ target }, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      assert.deepEqual([trial.status, trial.body], [400, { error: 'invalid_request' }], `trial ${target}`);
    }
    const fine = await h.createLink({ target: 'https://notevil.example/' }, { key });
    assert.equal(fine.status, 200);
    const edit = await h.request('PATCH', `/links/${fine.body.id}`, { key, body: { version: fine.body.version, target: 'https://shop.evil.example/' } });
    assert.deepEqual([edit.status, edit.body], [400, { error: 'invalid_request' }]);
    assert.deepEqual(await h.cli('blocklist list', {}), { domains: ['evil.example'] });
    assert.deepEqual(await h.cli('blocklist remove', { domain: 'evil.example' }), { domain: 'evil.example', blocked: false });
    assert.equal((await h.createLink({ target: 'https://evil.example/login' }, { key })).status, 200, 'allowed again');
  });

  test('blocking a domain suspends the links into it and its subdomains, at once on this instance, and keeps a lookalike', async () => {
    const into = (await h.createLink({ target: 'https://bad.example/a' }, { key })).body;
    const below = (await h.createLink({ target: 'https://cdn.BAD.example/b' }, { key })).body;
    const lookalike = (await h.createLink({ target: 'https://notbad.example/c' }, { key })).body;
    for (const link of [into, below, lookalike]) assert.equal(typeof (await location(h, link.slug)), 'string');
    const blocked = await h.app.inject({ method: 'GET', url: '/health' });
    assert.equal(blocked.statusCode, 200);
    assert.deepEqual(await h.cli('blocklist add', { domain: 'bad.example' }), { domain: 'bad.example', blocked: true, suspended: 2 });
    h.clock.advance(h.config.redirectCacheTtlMs);
    assert.equal(await location(h, into.slug), 404);
    assert.equal(await location(h, below.slug), 404);
    assert.equal(await location(h, lookalike.slug), 'https://notbad.example/c');
    const read = await h.request('GET', `/links/${into.id}`, { key });
    assert.equal(read.body.status, 'suspended');
  });

  test('bad domains are refused by the command line with a reason', async () => {
    for (const domain of ['com', 'https://x.example/', '', 'a b.example']) {
      await assert.rejects(h.cli('blocklist add', { domain }), /domain|required/, domain);
    }
  });
});

describe('blocking a domain reaches another instance’s redirects (PostgreSQL, two instances)', { skip: postgresSkip }, () => {
  let database: TestDatabase;
  let a: Harness;
  let b: Harness;
  before(async () => {
    database = await freshDatabase('postgres');
    // Ten minutes of TTL: only the instances' change notices can carry the suspension across in time.
    a = await Harness.start('postgres', { REDIRECT_CACHE_TTL_MS: '600000' }, database);
    b = await Harness.start('postgres', { REDIRECT_CACHE_TTL_MS: '600000' }, database);
  });
  after(async () => {
    await a.close({ keepDatabase: true });
    await b.close();
  });

  test('the links into a newly blocked domain stop redirecting on both instances', async () => {
    const { key } = await a.account();
    const link = (await a.createLink({ target: 'https://phish.example/bank' }, { key })).body;
    assert.equal(await location(b, link.slug), 'https://phish.example/bank');
    await a.cli('blocklist add', { domain: 'phish.example' });
    await until('B stops redirecting', async () => (await location(b, link.slug)) === 404, 5_000);
    await until('A stops redirecting', async () => (await location(a, link.slug)) === 404, 5_000);
  });
});

/** A stand-in for Google Safe Browsing's Lookup API: flags what `listed` holds, or fails as told. */
function fakeSafeBrowsing() {
  const state = { listed: new Set<string>(), mode: 'answer' as 'answer' | 'fail' | 'hang', requests: [] as { key: string | null; urls: string[] }[] };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (req.method !== 'POST' || url.pathname !== '/v4/threatMatches:find') return res.writeHead(404).end();
      const entries = (JSON.parse(body) as { threatInfo: { threatEntries: { url: string }[] } }).threatInfo.threatEntries.map((e) => e.url);
      state.requests.push({ key: url.searchParams.get('key'), urls: entries });
      if (state.mode === 'hang') return;
      if (state.mode === 'fail') return res.writeHead(503).end('{}');
      const matches = entries
        .filter((e) => state.listed.has(e))
        .map((e) => ({ threatType: 'SOCIAL_ENGINEERING', platformType: 'ANY_PLATFORM', threat: { url: e } }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(matches.length ? { matches } : {}));
    });
  });
  return { state, server };
}

eachDatabase('Google Safe Browsing at SAFE_BROWSING_URL', (kind) => {
  const fake = fakeSafeBrowsing();
  let h: Harness;
  let key: string;
  before(async () => {
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    const { port } = fake.server.address() as AddressInfo;
    h = await Harness.start(kind, { SAFE_BROWSING_API_KEY: 'test-key', SAFE_BROWSING_URL: `http://127.0.0.1:${port}` });
    key = (await h.account()).key;
  });
  after(async () => {
    await h.close();
    fake.server.closeAllConnections();
    await new Promise((resolve) => fake.server.close(resolve));
  });

  test('a URL it flags is refused at creation and edit; others are made; the key and the URL are what it is asked', async () => {
    fake.state.mode = 'answer';
    fake.state.listed.add('https://flagged.example/login');
    const refused = await h.createLink({ target: 'https://flagged.example/login' }, { key });
    assert.deepEqual([refused.status, refused.body], [400, { error: 'invalid_request' }]);
    assert.deepEqual(fake.state.requests.at(-1), { key: 'test-key', urls: ['https://flagged.example/login'] });
    const made = await h.createLink({ target: 'https://fine.example/' }, { key });
    assert.equal(made.status, 200);
    const edit = await h.request('PATCH', `/links/${made.body.id}`, { key, body: { version: made.body.version, target: 'https://flagged.example/login' } });
    assert.deepEqual([edit.status, edit.body], [400, { error: 'invalid_request' }]);
    const trial = await h.createLink({ target: 'https://flagged.example/login' }, { headers: { 'x-forwarded-for': '198.51.100.7' } });
    assert.equal(trial.status, 400);
  });

  test('a lookup that fails or times out never blocks a creation', async () => {
    fake.state.mode = 'fail';
    assert.equal((await h.createLink({ target: 'https://flagged.example/login' }, { key })).status, 200, 'the service answered 503');
    fake.state.mode = 'hang';
    const asked = fake.state.requests.length;
    assert.equal((await h.createLink({ target: 'https://flagged.example/login' }, { key })).status, 200, 'no answer within the timeout');
    assert.equal(fake.state.requests.length, asked + 1);
  });
});
