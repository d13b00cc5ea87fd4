import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness, type ApiResponse } from '../helpers/harness.js';

const DAY = 86_400_000;
const LINK_FIELDS = [
  'created_at',
  'environment',
  'expiresAt',
  'id',
  'qrUrl',
  'shortUrl',
  'slug',
  'status',
  'tags',
  'target',
  'title',
  'trial',
  'updated_at',
  'version',
];
const nextMidnight = (ms: number) => Math.floor(ms / DAY) * DAY + DAY;

/** A fresh client network per call, so tests never share an allowance by accident. */
let networks = 0;
const ipv4 = () => `198.51.${100 + Math.floor(++networks / 250)}.${(networks % 250) + 1}`;
const ipv6Prefix = () => `2001:db8:${(++networks).toString(16)}:${crypto.randomBytes(2).toString('hex')}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

eachDatabase('no-key trial', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { TRUST_PROXY: '1' });
  });
  after(async () => h.close());

  const allowance = (ip: string) => h.request('GET', '/trial', { headers: from(ip) });
  const trial = (ip: string, body: unknown = { target: 'https://example.org/t' }, idempotencyKey?: string): Promise<ApiResponse> =>
    h.createLink(body, { headers: from(ip), ...(idempotencyKey ? { idempotencyKey } : {}) });
  const expectError = (res: ApiResponse, status: number, error: string) => assert.deepEqual([res.status, res.body], [status, { error }], res.text);

  test('GET /trial answers exactly the trial allowance object, resetting at the next UTC midnight', async () => {
    const res = await allowance(ipv4());
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(res.body, {
      trial: true,
      remaining: 3,
      dailyLinks: 3,
      expiresAfterDays: 7,
      resetAt: nextMidnight(h.clock.now()),
      sharedCapacity: true,
    });
  });

  test('GET /trial needs no credentials and ignores any that are sent', async () => {
    const ip = ipv4();
    const res = await h.request('GET', '/trial', { headers: { ...from(ip), authorization: 'Bearer nonsense', 'x-service-trial-token': 'nonsense' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.remaining, 3);
  });

  test('a creation without Authorization returns a trial Link plus a trialToken, expiring seven days after creation', async () => {
    const res = await trial(ipv4(), { target: 'https://example.org/trial?x=1', title: 'Try me' });
    assert.equal(res.status, 200, res.text);
    const { trialToken, ...link } = res.body;
    assert.equal(typeof trialToken, 'string');
    assert.ok(trialToken.length >= 32, 'the token is long enough to be unguessable');
    // visits is optional in the Link (API.md part 2): allowed, and zero for a new link.
    assert.deepEqual(
      Object.keys(link)
        .filter((k) => k !== 'visits')
        .sort(),
      LINK_FIELDS,
    );
    assert.ok(link.visits === undefined || link.visits === 0);
    assert.equal(link.trial, true);
    assert.equal(link.status, 'active');
    assert.equal(link.target, 'https://example.org/trial?x=1');
    assert.equal(link.title, 'Try me');
    assert.equal(link.tags, '');
    assert.equal(link.created_at, h.clock.now());
    assert.equal(link.expiresAt, link.created_at + 7 * DAY);
    assert.equal(link.shortUrl, `http://sho.rt/s/${link.slug}`);
    assert.equal(link.qrUrl, `http://sho.rt/q/${link.slug}`);
  });

  test('an explicit maxCredits of 0 is accepted on a trial creation', async () => {
    const res = await trial(ipv4(), { target: 'https://example.org/', title: 't', maxCredits: 0 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.trial, true);
  });

  test('alias, tags or maxCredits 10 without a key are 400 invalid_request and use none of the allowance', async () => {
    const ip = ipv4();
    for (const body of [
      { target: 'https://example.org/', alias: `a${crypto.randomBytes(6).toString('hex')}` },
      { target: 'https://example.org/', tags: 'x' },
      { target: 'https://example.org/', maxCredits: 10 },
    ]) {
      expectError(await trial(ip, body), 400, 'invalid_request');
    }
    assert.equal((await allowance(ip)).body.remaining, 3);
  });

  test('a network gets three trial links a UTC day; the fourth is 429 rate_limited with Retry-After', async () => {
    const ip = ipv4();
    for (const left of [2, 1, 0]) {
      assert.equal((await trial(ip)).status, 200);
      assert.equal((await allowance(ip)).body.remaining, left);
    }
    const fourth = await trial(ip);
    expectError(fourth, 429, 'rate_limited');
    const retryAfter = Number(fourth.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${fourth.headers.get('retry-after')}`);
    assert.ok(retryAfter <= Math.ceil((nextMidnight(h.clock.now()) - h.clock.now()) / 1000), 'no longer than until the reset');
    assert.equal((await allowance(ip)).body.remaining, 0);
    // Another network is unaffected.
    assert.equal((await trial(ipv4())).status, 200);
  });

  test('parallel trial creations from one network never exceed three', async () => {
    const ip = ipv4();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => trial(ip, { target: `https://example.org/race/${i}` })));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 200, 200, ...Array(9).fill(429)], JSON.stringify(results.map((r) => r.body)));
    assert.equal((await allowance(ip)).body.remaining, 0);
  });

  test('the trial allowance comes back at the next UTC midnight', async () => {
    const ip = ipv4();
    for (let i = 0; i < 3; i++) assert.equal((await trial(ip)).status, 200);
    expectError(await trial(ip), 429, 'rate_limited');
    const before = await allowance(ip);
    h.clock.advance(before.body.resetAt - h.clock.now() - 1);
    expectError(await trial(ip), 429, 'rate_limited');
    h.clock.advance(1);
    const after = await allowance(ip);
    assert.equal(after.body.remaining, 3);
    assert.equal(after.body.resetAt, before.body.resetAt + DAY);
    assert.equal((await trial(ip)).status, 200);
  });

  test('two addresses in one IPv6 /64 share one allowance; another /64 has its own', async () => {
    const prefix = ipv6Prefix();
    assert.equal((await trial(`${prefix}:0:0:0:1`)).status, 200);
    assert.equal((await trial(`${prefix}:ffff:1234:5678:9abc`)).status, 200);
    assert.equal((await trial(`${prefix}::42`)).status, 200);
    expectError(await trial(`${prefix}:aaaa::1`), 429, 'rate_limited');
    assert.equal((await allowance(`${prefix}::7`)).body.remaining, 0);
    const neighbour = ipv6Prefix();
    assert.equal((await allowance(`${neighbour}::1`)).body.remaining, 3);
    assert.equal((await trial(`${neighbour}::1`)).status, 200);
  });

  test('an IPv4-mapped IPv6 address counts as its IPv4 address', async () => {
    const ip = ipv4();
    assert.equal((await trial(ip)).status, 200);
    assert.equal((await allowance(`::ffff:${ip}`)).body.remaining, 2);
  });

  test('behind the proxy only the right-most X-Forwarded-For address counts; client-written ones are ignored', async () => {
    const ip = ipv4();
    for (let i = 0; i < 3; i++) assert.equal((await trial(`203.0.113.${i + 1}, ${ip}`)).status, 200);
    expectError(await trial(`203.0.113.99, ${ip}`), 429, 'rate_limited');
    assert.equal((await allowance(`10.9.9.9, ${ip}`)).body.remaining, 0);
  });

  test('the trialToken reads its own link and never appears in the read', async () => {
    const created = await trial(ipv4(), { target: 'https://example.org/own', title: 'own' });
    const { trialToken, ...link } = created.body;
    const read = await h.request('GET', `/links/${link.id}`, { headers: { 'x-service-trial-token': trialToken } });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, link);
    assert.equal(read.text.includes(trialToken), false);
  });

  test('a trialToken is 403 api_scope_required on another link, trial or account', async () => {
    const ip = ipv4();
    const mine = await trial(ip);
    const theirs = await trial(ipv4());
    const { key } = await h.account();
    const account = await h.createLink({ target: 'https://example.org/acct' }, { key });
    const headers = { 'x-service-trial-token': mine.body.trialToken };
    expectError(await h.request('GET', `/links/${theirs.body.id}`, { headers }), 403, 'api_scope_required');
    expectError(await h.request('GET', `/links/${account.body.id}`, { headers }), 403, 'api_scope_required');
    expectError(await h.request('GET', `/links/${crypto.randomUUID()}`, { headers }), 403, 'api_scope_required');
  });

  test('a malformed or unknown trialToken is 401 api_key_invalid', async () => {
    const link = await trial(ipv4());
    const token: string = link.body.trialToken;
    const forged = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    for (const bad of ['nonsense', '', `${token}x`, token.slice(0, -1), forged, token.toUpperCase()]) {
      expectError(await h.request('GET', `/links/${link.body.id}`, { headers: { 'x-service-trial-token': bad } }), 401, 'api_key_invalid');
    }
  });

  test('a trialToken sent as a Bearer key is 401 api_key_invalid', async () => {
    const link = await trial(ipv4());
    const res = await h.request('GET', `/links/${link.body.id}`, { headers: { authorization: `Bearer ${link.body.trialToken}` } });
    expectError(res, 401, 'api_key_invalid');
  });

  test('a trialToken on POST /links is ignored: the creation is a new trial link of the caller’s network', async () => {
    const ip = ipv4();
    const first = await trial(ip);
    const second = await h.createLink({ target: 'https://example.org/again' }, { headers: { ...from(ip), 'x-service-trial-token': first.body.trialToken } });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.trial, true);
    assert.notEqual(second.body.id, first.body.id);
    assert.equal((await allowance(ip)).body.remaining, 1);
  });

  test('a trialToken does not open GET /links or PATCH: both are 403 api_scope_required', async () => {
    const link = await trial(ipv4());
    const headers = { 'x-service-trial-token': link.body.trialToken };
    expectError(await h.request('GET', '/links', { headers }), 403, 'api_scope_required');
    const patch = await h.request('PATCH', `/links/${link.body.id}`, { headers, body: { version: 1, target: 'https://evil.example/' } });
    expectError(patch, 403, 'api_scope_required');
    const pause = await h.request('PATCH', `/links/${link.body.id}`, { headers, body: { version: 1, status: 'paused' } });
    expectError(pause, 403, 'api_scope_required');
    const read = await h.request('GET', `/links/${link.body.id}`, { headers });
    assert.deepEqual([read.body.target, read.body.version, read.body.status], ['https://example.org/t', 1, 'active']);
  });

  test('when Authorization is present it alone decides, even beside a valid trialToken', async () => {
    const link = await trial(ipv4());
    const token = { 'x-service-trial-token': link.body.trialToken };
    expectError(await h.request('GET', `/links/${link.body.id}`, { headers: { ...token, authorization: 'Bearer nope' } }), 401, 'api_key_invalid');
    const { key } = await h.account();
    expectError(await h.request('GET', `/links/${link.body.id}`, { key, headers: token }), 404, 'not_found');
  });

  test('a trial replay with the same Idempotency-Key returns the same link and trialToken and creates nothing', async () => {
    const ip = ipv4();
    const idem = crypto.randomUUID();
    const body = { target: 'https://example.org/replay', title: 'r' };
    const first = await trial(ip, body, idem);
    assert.equal(first.status, 200);
    const replay = await trial(ip, { title: 'r', target: 'https://example.org/replay' }, idem);
    assert.equal(replay.status, 200, replay.text);
    assert.deepEqual(replay.body, first.body);
    assert.equal((await allowance(ip)).body.remaining, 2);
    const read = await h.request('GET', `/links/${first.body.id}`, { headers: { 'x-service-trial-token': replay.body.trialToken } });
    assert.equal(read.status, 200);
  });

  test('a trial replay is answered even after the network has used its three links', async () => {
    const ip = ipv4();
    const idem = crypto.randomUUID();
    const first = await trial(ip, { target: 'https://example.org/keep' }, idem);
    assert.equal(first.status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await trial(ip)).status, 200);
    expectError(await trial(ip), 429, 'rate_limited');
    const replay = await trial(ip, { target: 'https://example.org/keep' }, idem);
    assert.equal(replay.status, 200, replay.text);
    assert.deepEqual(replay.body, first.body);
  });

  test('a trial replay with another payload is 409 request_conflict and creates nothing', async () => {
    const ip = ipv4();
    const idem = crypto.randomUUID();
    assert.equal((await trial(ip, { target: 'https://example.org/one' }, idem)).status, 200);
    expectError(await trial(ip, { target: 'https://example.org/two' }, idem), 409, 'request_conflict');
    assert.equal((await allowance(ip)).body.remaining, 2);
  });

  test('trial Idempotency-Keys are scoped to the network: the same key from another network is a separate link', async () => {
    const idem = crypto.randomUUID();
    const body = { target: 'https://example.org/scoped' };
    const a = await trial(ipv4(), body, idem);
    const otherIp = ipv4();
    const b = await trial(otherIp, body, idem);
    assert.equal(b.status, 200, b.text);
    assert.notEqual(b.body.id, a.body.id);
    assert.notEqual(b.body.trialToken, a.body.trialToken);
    assert.equal((await allowance(otherIp)).body.remaining, 2);
  });

  test('a trial replay on a later UTC day is 409 request_conflict, never a second link', async () => {
    const ip = ipv4();
    const idem = crypto.randomUUID();
    const body = { target: 'https://example.org/late' };
    assert.equal((await trial(ip, body, idem)).status, 200);
    h.clock.advance(nextMidnight(h.clock.now()) - h.clock.now());
    expectError(await trial(ip, body, idem), 409, 'request_conflict');
    assert.equal((await allowance(ip)).body.remaining, 3);
  });

  test('seven days after creation the link reads 410 link_expired and its redirects answer 410 HTML', async () => {
    const ip = ipv4();
    const created = await trial(ip, { target: 'https://example.org/expiring' });
    const { trialToken, id, slug, expiresAt } = created.body;
    const headers = { 'x-service-trial-token': trialToken };
    h.clock.advance(expiresAt - h.clock.now() - 1);
    assert.equal((await h.request('GET', `/links/${id}`, { headers })).status, 200);
    const live = await h.request('GET', `/s/${slug}`);
    assert.equal(live.status, 302);
    h.clock.advance(1);
    expectError(await h.request('GET', `/links/${id}`, { headers }), 410, 'link_expired');
    for (const path of [`/s/${slug}`, `/q/${slug}`]) {
      for (const method of ['GET', 'HEAD']) {
        const res = await h.request(method, path);
        assert.equal(res.status, 410, `${method} ${path}`);
        assert.equal(res.headers.get('location'), null);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        assert.equal(res.headers.get('cache-control'), 'private, no-store');
        if (method === 'GET') assert.match(res.text, /<html[\s>]/i);
      }
    }
  });

  test('an invalid Authorization header on POST /links is 401 and never falls back to a trial', async () => {
    const ip = ipv4();
    const unknownKey = `shl_live_${crypto.randomBytes(32).toString('base64url')}`;
    for (const authorization of ['Bearer nonsense', `Bearer ${unknownKey}`, 'Basic dXNlcjpwYXNz', '', 'Bearer']) {
      const res = await h.createLink({ target: 'https://example.org/' }, { headers: { ...from(ip), authorization } });
      expectError(res, 401, 'api_key_invalid');
    }
    assert.equal((await allowance(ip)).body.remaining, 3);
  });
});

eachDatabase('no-key trial shared daily cap', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { TRUST_PROXY: '1', TRIAL_DAILY_LIMIT: '5' });
  });
  after(async () => h.close());

  test('past the service-wide daily cap a trial creation is 503 links_unavailable with Retry-After, and resets the next UTC day', async () => {
    const [a, b, c] = [ipv4(), ipv4(), ipv4()];
    for (let i = 0; i < 3; i++) assert.equal((await h.createLink({ target: 'https://example.org/' }, { headers: from(a) })).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await h.createLink({ target: 'https://example.org/' }, { headers: from(b) })).status, 200);
    const refused = await h.createLink({ target: 'https://example.org/' }, { headers: from(c) });
    assert.deepEqual([refused.status, refused.body], [503, { error: 'links_unavailable' }]);
    // The cap starts over at midnight UTC: the wait named is until then.
    assert.equal(refused.headers.get('retry-after'), String(Math.ceil((nextMidnight(h.clock.now()) - h.clock.now()) / 1000)));
    // The refused request used none of its network's allowance; GET /trial still answers.
    const left = await h.request('GET', '/trial', { headers: from(c) });
    assert.equal(left.status, 200);
    assert.deepEqual([left.body.remaining, left.body.sharedCapacity], [3, true]);
    // A network with allowance left is refused too: the cap is service-wide.
    const fromB = await h.createLink({ target: 'https://example.org/' }, { headers: from(b) });
    assert.deepEqual([fromB.status, fromB.body], [503, { error: 'links_unavailable' }]);
    h.clock.advance(nextMidnight(h.clock.now()) - h.clock.now());
    assert.equal((await h.createLink({ target: 'https://example.org/' }, { headers: from(c) })).status, 200);
  });

  test('account links do not count against the trial cap', async () => {
    const { key } = await h.account();
    for (let i = 0; i < 6; i++) assert.equal((await h.createLink({ target: 'https://example.org/' }, { key })).status, 200);
    const ip = ipv4();
    assert.equal((await h.createLink({ target: 'https://example.org/' }, { headers: from(ip) })).status, 200);
  });

  test('parallel trial creations from many networks never exceed the shared cap', async () => {
    h.clock.advance(nextMidnight(h.clock.now()) - h.clock.now());
    const results = await Promise.all(Array.from({ length: 12 }, () => h.createLink({ target: 'https://example.org/' }, { headers: from(ipv4()) })));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, ...Array(7).fill(503)], JSON.stringify(results.map((r) => r.body)));
  });
});

eachDatabase('no-key trial without a trusted proxy', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('without TRUST_PROXY, X-Forwarded-For is ignored: every forged address shares the socket address allowance', async () => {
    for (let i = 0; i < 3; i++) {
      assert.equal((await h.createLink({ target: 'https://example.org/' }, { headers: from(ipv4()) })).status, 200);
    }
    const res = await h.createLink({ target: 'https://example.org/' }, { headers: from(ipv4()) });
    assert.deepEqual([res.status, res.body], [429, { error: 'rate_limited' }]);
    assert.equal((await h.request('GET', '/trial', { headers: from(ipv4()) })).body.remaining, 0);
  });
});
