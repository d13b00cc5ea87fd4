import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { STRONG_PASSWORD, freshEmail, signIn, websiteRequest } from '../helpers/accounts.js';

const LIMITS = {
  TRUST_PROXY: '1',
  RATE_LIMIT_PER_IP: '20',
  RATE_LIMIT_PER_ACCOUNT: '30',
  WEBSITE_RATE_LIMIT_PER_IP: '60',
  WEBSITE_RATE_LIMIT_PER_ACCOUNT: '50',
  REDIRECT_FLOOD_PER_MINUTE: '50',
};

let nextNet = 1;
/** A network of its own for each test, so tests of one file do not share counters. */
const freshNetwork = () => `198.51.${Math.floor(nextNet / 250)}.${(nextNet++ % 250) + 1}`;
const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

eachDatabase('API rate limits', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, LIMITS);
  });
  after(async () => h.close());

  test('the first 20 requests of a network in a minute pass and the 21st is 429 rate_limited', async () => {
    const ip = freshNetwork();
    for (let i = 0; i < 20; i++) assert.equal((await h.request('GET', '/trial', from(ip))).status, 200, `request ${i + 1}`);
    const refused = await h.request('GET', '/trial', from(ip));
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.body, { error: 'rate_limited' });
    assert.match(refused.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(refused.headers.get('retry-after'), '3');
    assert.equal(refused.headers.get('ratelimit-policy'), '"network";q=20;w=60');
    assert.equal(refused.headers.get('ratelimit'), '"network";r=0;t=60');
    assert.equal((await h.request('GET', '/trial', from(freshNetwork()))).status, 200, 'another network is unaffected');
  });

  test("the website's session traffic has limits of its own, apart from the API's on the same network", async () => {
    const ip = freshNetwork();
    const email = freshEmail();
    await h.cli('accounts create', { email, password: STRONG_PASSWORD });
    const { session } = await signIn(h, email, STRONG_PASSWORD);
    assert.ok(session, 'signed in');
    const page = () => websiteRequest(h, 'GET', '/links', session, undefined, { 'x-forwarded-for': ip });
    for (let i = 0; i < 50; i++) assert.equal((await page()).status, 200, `website request ${i + 1}`);
    const refused = await page();
    assert.deepEqual([refused.status, refused.body], [429, { error: 'rate_limited' }]);
    assert.equal(refused.headers.get('ratelimit-policy'), '"network";q=60;w=60, "account";q=50;w=60');
    for (let i = 0; i < 20; i++) assert.equal((await h.request('GET', '/trial', from(ip))).status, 200, `API request ${i + 1} on the same network`);
    assert.equal((await h.request('GET', '/trial', from(ip))).status, 429, "the API's own limit still holds");
  });

  test('successful answers carry the policy and the remaining quota', async () => {
    const ip = freshNetwork();
    const first = await h.request('GET', '/trial', from(ip));
    assert.equal(first.headers.get('ratelimit-policy'), '"network";q=20;w=60');
    assert.equal(first.headers.get('ratelimit'), '"network";r=19;t=3');
    const { key } = await h.account();
    const keyed = await h.request('GET', '/links', { key, ...from(ip) });
    assert.equal(keyed.status, 200);
    assert.equal(keyed.headers.get('ratelimit-policy'), '"network";q=20;w=60, "account";q=30;w=60');
    assert.equal(keyed.headers.get('ratelimit'), '"network";r=18;t=6, "account";r=29;t=2');
  });

  test('the 31st request of one account in a minute is refused even when spread over networks and keys', async () => {
    const { accountId, key } = await h.account();
    const second = await h.keyFor(accountId);
    for (let i = 0; i < 30; i++) {
      const res = await h.request('GET', '/links', { key: i % 2 ? key : second, ...from(freshNetwork()) });
      assert.equal(res.status, 200, `request ${i + 1}`);
    }
    const refused = await h.request('GET', '/links', { key, ...from(freshNetwork()) });
    assert.deepEqual([refused.status, refused.body], [429, { error: 'rate_limited' }]);
    assert.equal(refused.headers.get('retry-after'), '2');
    assert.equal(refused.headers.get('ratelimit'), '"network";r=19;t=3, "account";r=0;t=60');
    const other = await h.account();
    assert.equal((await h.request('GET', '/links', { key: other.key, ...from(freshNetwork()) })).status, 200);
  });

  test('capacity returns continuously: one request per 3 s after a burst, all 20 after a minute', async () => {
    const ip = freshNetwork();
    for (let i = 0; i < 20; i++) await h.request('GET', '/trial', from(ip));
    assert.equal((await h.request('GET', '/trial', from(ip))).status, 429);
    h.clock.advance(2_999);
    assert.equal((await h.request('GET', '/trial', from(ip))).status, 429, 'not yet');
    h.clock.advance(1);
    assert.equal((await h.request('GET', '/trial', from(ip))).status, 200, 'one interval later');
    assert.equal((await h.request('GET', '/trial', from(ip))).status, 429, 'and only one');
    h.clock.advance(60_000);
    for (let i = 0; i < 20; i++) assert.equal((await h.request('GET', '/trial', from(ip))).status, 200);
    assert.equal((await h.request('GET', '/trial', from(ip))).status, 429);
  });

  test('addresses of one IPv6 /64 share a counter; another /64 has its own', async () => {
    for (let i = 0; i < 20; i++) assert.equal((await h.request('GET', '/trial', from(`2001:db8:1:2::${i + 1}`))).status, 200);
    assert.equal((await h.request('GET', '/trial', from('2001:db8:1:2:ffff::9'))).status, 429);
    assert.equal((await h.request('GET', '/trial', from('2001:db8:1:3::1'))).status, 200);
  });

  test('refused credentials still count against the network, and the OpenAPI document counts for nothing', async () => {
    const ip = freshNetwork();
    for (let i = 0; i < 20; i++) {
      const res = await h.request('GET', '/links', { key: 'shl_live_nonsense', ...from(ip) });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('ratelimit'), `"network";r=${19 - i};t=${3 * (i + 1)}`, 'errors carry the fields too');
    }
    assert.equal((await h.request('GET', '/links', { key: 'shl_live_nonsense', ...from(ip) })).status, 429);
    const doc = await h.request('GET', '/openapi.json', from(ip));
    assert.equal(doc.status, 200);
    assert.equal(doc.headers.get('ratelimit'), null);
  });

  test('redirects are not held to the API limits but to the flood guard', async () => {
    const { key } = await h.account();
    const link = await h.createLink({ target: 'https://example.org/poster' }, { key, ...from(freshNetwork()) });
    const ip = freshNetwork();
    for (let i = 0; i < 50; i++) {
      const res = await h.request('GET', `/${i % 2 ? 's' : 'q'}/${link.body.slug}`, from(ip));
      assert.equal(res.status, 302, `visit ${i + 1}`);
      assert.equal(res.headers.get('ratelimit'), null);
    }
    const flooded = await h.request('GET', `/s/${link.body.slug}`, from(ip));
    assert.deepEqual([flooded.status, flooded.body], [429, { error: 'rate_limited' }]);
    assert.equal(flooded.headers.get('retry-after'), '2');
    assert.equal((await h.request('GET', `/s/${link.body.slug}`, from(freshNetwork()))).status, 302);
    h.clock.advance(1_200);
    assert.equal((await h.request('GET', `/s/${link.body.slug}`, from(ip))).status, 302, 'capacity returns');
  });

  test('the flood guard counts the address our edge appended last, whatever the client wrote before it', async () => {
    const { key } = await h.account();
    const link = await h.createLink({ target: 'https://example.org/forged' }, { key, ...from(freshNetwork()) });
    const ip = freshNetwork();
    for (let i = 0; i < 50; i++) {
      const res = await h.request('GET', `/s/${link.body.slug}`, from(`198.18.0.${i}, ${ip}`));
      assert.equal(res.status, 302, `visit ${i + 1}`);
    }
    const flooded = await h.request('GET', `/q/${link.body.slug}`, from(`forged,${ip} `));
    assert.deepEqual([flooded.status, flooded.body], [429, { error: 'rate_limited' }]);
    assert.equal((await h.request('GET', `/s/${link.body.slug}`, from(`${ip}, ${freshNetwork()}`))).status, 302, 'the forged part is not the client');
  });

  test('on the redirect path too, addresses of one IPv6 /64 share a counter', async () => {
    const { key } = await h.account();
    const link = await h.createLink({ target: 'https://example.org/v6' }, { key, ...from(freshNetwork()) });
    for (let i = 0; i < 50; i++) assert.equal((await h.request('GET', `/s/${link.body.slug}`, from(`2001:db8:9:9::${i + 1}`))).status, 302);
    assert.equal((await h.request('GET', `/s/${link.body.slug}`, from('2001:db8:9:9:ffff::1'))).status, 429);
    assert.equal((await h.request('GET', `/s/${link.body.slug}`, from('2001:db8:9:a::1'))).status, 302);
  });

  test('on the redirect path, an IPv4-mapped IPv6 address (a server on ::) is its IPv4 address, also when it repeats', async () => {
    const { key } = await h.account();
    const link = await h.createLink({ target: 'https://example.org/mapped' }, { key, ...from(freshNetwork()) });
    const ip = freshNetwork();
    // The same client seen both ways (the guard keeps each address's network once it has worked it out).
    for (let i = 0; i < 50; i++)
      assert.equal((await h.request('GET', `/s/${link.body.slug}`, from(i % 3 ? `::ffff:${ip}` : ip))).status, 302, `visit ${i + 1}`);
    assert.equal((await h.request('GET', `/s/${link.body.slug}`, from(`::ffff:${ip}`))).status, 429);
    assert.equal((await h.request('GET', `/s/${link.body.slug}`, from(ip))).status, 429);
    assert.equal((await h.request('GET', `/s/${link.body.slug}`, from(`::ffff:${freshNetwork()}`))).status, 302);
  });
});
