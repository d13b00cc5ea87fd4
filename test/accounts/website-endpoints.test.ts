import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { mailDir, signUpVerified, websiteRequest } from '../helpers/accounts.js';

eachDatabase('website-only endpoints with a session', (kind) => {
  let h: Harness;
  const mail = mailDir();
  let session: string;
  let accountId: string;

  before(async () => {
    h = await Harness.start(kind, { MAIL_DIR: mail.dir, FREE_LINKS_PER_MONTH: '2' });
    ({ token: session, accountId } = await signUpVerified(h, mail.dir));
  });
  after(async () => {
    await h.close();
    mail.remove();
  });

  test('a key made on the website is shown once, listed without its secret, works, and stops at once when revoked', async () => {
    const created = await websiteRequest(h, 'POST', '/keys', session, { name: 'poster', scopes: ['links:read', 'links:write'], budget: 30 });
    assert.equal(created.status, 200);
    const { id, key } = created.body;
    assert.equal(created.body.prefix, key.slice(0, created.body.prefix.length));
    assert.equal(created.body.last4, key.slice(-4));
    assert.deepEqual([created.body.name, created.body.scopes, created.body.budget], ['poster', ['links:read', 'links:write'], 30]);
    const listed = await websiteRequest(h, 'GET', '/keys', session);
    const entry = listed.body.keys.find((k: { id: string }) => k.id === id);
    assert.deepEqual(
      { ...entry, createdAt: 0 },
      {
        id,
        name: 'poster',
        prefix: created.body.prefix,
        last4: created.body.last4,
        scopes: ['links:read', 'links:write'],
        budget: 30,
        spentThisMonth: 0,
        createdAt: 0,
        lastUsedAt: null,
      },
    );
    assert.ok(!listed.text.includes(key));
    assert.equal((await h.request('GET', '/links', { key })).status, 200);
    assert.equal((await websiteRequest(h, 'DELETE', `/keys/${id}`, session)).status, 204);
    assert.equal((await h.request('GET', '/links', { key })).status, 401);
    assert.ok(!(await websiteRequest(h, 'GET', '/keys', session)).body.keys.some((k: { id: string }) => k.id === id));
  });

  test('keys cannot be listed, made or revoked with an API key', async () => {
    const { key, keyId } = await h.account();
    const origin = { origin: 'http://sho.rt' };
    for (const [method, path, body] of [
      ['GET', '/keys', undefined],
      ['POST', '/keys', { name: 'x', scopes: ['links:read'], budget: null }],
      ['DELETE', `/keys/${keyId}`, {}],
    ] as const) {
      const response = await h.request(method, path, { key, body, headers: origin });
      assert.equal(response.status, 403, `${method} ${path}`);
      assert.deepEqual(response.body, { error: 'api_scope_required' });
    }
    assert.equal((await h.request('GET', '/links', { key })).status, 200, 'the key was not revoked');
  });

  test('another account’s key is not found', async () => {
    const { keyId } = await h.account();
    const response = await websiteRequest(h, 'DELETE', `/keys/${keyId}`, session);
    assert.equal(response.status, 404);
    assert.deepEqual(response.body, { error: 'not_found' });
  });

  test('the session creates links within the free allowance, then pays with credits when allowed, with no key budget', async () => {
    const link = (maxCredits?: number) =>
      websiteRequest(
        h,
        'POST',
        '/links',
        session,
        { target: 'https://example.com/', ...(maxCredits === undefined ? {} : { maxCredits }) },
        { 'idempotency-key': crypto.randomUUID() },
      );
    assert.equal((await link()).status, 200);
    assert.equal((await link()).status, 200);
    assert.deepEqual((await link()).body, { error: 'link_allowance_required' });
    assert.deepEqual((await link(10)).body, { error: 'credits_required' });
    await h.cli('credits grant', { account: accountId, credits: '100' });
    const paid = await link(10);
    assert.equal(paid.status, 200);
    const usage = await websiteRequest(h, 'GET', '/account/usage', session);
    assert.equal(usage.body.links.createdThisMonth, 3);
    assert.equal(usage.body.purchasedBalance, 90);
    assert.equal(usage.body.keyBudget, null);
    assert.equal(usage.body.keySpent, 0);
    const listed = await websiteRequest(h, 'GET', '/links', session);
    assert.equal(listed.body.links.length, 3);
  });

  test('a pack bought with the session is listed, refunded once, and the ledger tells the story', async () => {
    await h.cli('credits grant', { account: accountId, credits: '50' });
    // The ledger lists by time: each step a second apart.
    h.clock.advance(1000);
    const idempotencyKey = crypto.randomUUID();
    const bought = await websiteRequest(h, 'POST', '/links/capacity', session, { maxCredits: 50 }, { 'idempotency-key': idempotencyKey });
    assert.equal(bought.status, 200);
    const replay = await websiteRequest(h, 'POST', '/links/capacity', session, { maxCredits: 50 }, { 'idempotency-key': idempotencyKey });
    assert.deepEqual(replay.body, bought.body, 'a double click buys one pack');
    const packs = await websiteRequest(h, 'GET', '/account/packs', session);
    assert.equal(packs.body.packs.length, 1);
    assert.deepEqual(
      { ...packs.body.packs[0], createdAt: 0 },
      { id: bought.body.id, status: 'active', credits: 50, visits: 10_000, visitsUsed: 0, createdAt: 0, refundable: true },
    );
    const before = (await websiteRequest(h, 'GET', '/account/credits', session)).body.purchasedBalance;
    h.clock.advance(1000);
    const refund = await websiteRequest(h, 'POST', `/account/packs/${bought.body.id}/refund`, session);
    assert.equal(refund.status, 200);
    assert.deepEqual(refund.body, { id: bought.body.id, status: 'refunded', credits: 50, purchasedBalance: before + 50 });
    const again = await websiteRequest(h, 'POST', `/account/packs/${bought.body.id}/refund`, session);
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { error: 'request_conflict' });
    const credits = (await websiteRequest(h, 'GET', '/account/credits', session)).body;
    assert.equal(credits.purchasedBalance, before + 50);
    assert.equal(credits.reserved, 0);
    assert.deepEqual(
      credits.history.slice(0, 2).map((entry: { credits: number; reason: string }) => [entry.reason, entry.credits]),
      [
        ['refund', 50],
        ['pack', -50],
      ],
    );
    assert.ok(credits.history.some((entry: { reason: string }) => entry.reason === 'grant'));
  });

  test('another account’s pack cannot be refunded', async () => {
    const other = await h.account();
    await h.cli('credits grant', { account: other.accountId, credits: '50' });
    const bought = await h.request('POST', '/links/capacity', {
      key: other.key,
      body: { maxCredits: 50 },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    const response = await websiteRequest(h, 'POST', `/account/packs/${bought.body.id}/refund`, session);
    assert.equal(response.status, 404);
  });

  test('without a session the website-only endpoints are 401', async () => {
    for (const path of ['/keys', '/account/packs', '/account/credits', '/auth/session']) {
      assert.equal((await h.request('GET', path)).status, 401, path);
    }
  });

  test('the OpenAPI document marks the website-only operations and declares their tag', async () => {
    const document = (await h.request('GET', '/openapi.json')).body;
    assert.ok(document.tags.some((tag: { name: string }) => tag.name === 'website'));
    const operations = Object.values(document.paths as Record<string, Record<string, any>>).flatMap((path) => Object.values(path));
    const website = operations.filter((operation) => operation['x-website-only'] === true);
    assert.ok(website.length >= 15);
    for (const operation of website) {
      assert.deepEqual(operation.tags, ['website']);
      assert.equal(typeof operation.operationId, 'string');
    }
    assert.ok(document.components.securitySchemes.session);
  });
});
