import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { fingerprint } from '../../src/platform/auth/secrets.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('Idempotency-Key on POST /links', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { TRUST_PROXY: '1', FREE_LINKS_PER_MONTH: '1000' });
  });
  after(async () => h.close());

  test('a replay with the same payload returns the first result and creates nothing', async () => {
    const { key, accountId } = await h.account();
    const idem = crypto.randomUUID();
    const first = await h.createLink({ target: 'https://example.org/i', title: 'x' }, { key, idempotencyKey: idem });
    h.clock.advance(5000);
    const replay = await h.createLink({ title: 'x', target: 'https://example.org/i' }, { key, idempotencyKey: idem });
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.body, first.body);
    assert.equal(await h.linkCount(accountId), 1);
  });

  test('the same key with another payload is 409 request_conflict', async () => {
    const { key, accountId } = await h.account();
    const idem = crypto.randomUUID();
    await h.createLink({ target: 'https://example.org/a' }, { key, idempotencyKey: idem });
    const other = await h.createLink({ target: 'https://example.org/b' }, { key, idempotencyKey: idem });
    assert.deepEqual([other.status, other.body], [409, { error: 'request_conflict' }]);
    assert.equal(await h.linkCount(accountId), 1);
  });

  test('the same key sent by another key of the account is 409 request_conflict', async () => {
    const { key, accountId } = await h.account();
    const second = await h.keyFor(accountId);
    const idem = crypto.randomUUID();
    await h.createLink({ target: 'https://example.org/a' }, { key, idempotencyKey: idem });
    const res = await h.createLink({ target: 'https://example.org/a' }, { key: second, idempotencyKey: idem });
    assert.deepEqual([res.status, res.body], [409, { error: 'request_conflict' }]);
  });

  test('keys of different accounts never collide', async () => {
    const a = await h.account();
    const b = await h.account();
    const idem = crypto.randomUUID();
    const ra = await h.createLink({ target: 'https://example.org/a' }, { key: a.key, idempotencyKey: idem });
    const rb = await h.createLink({ target: 'https://example.org/a' }, { key: b.key, idempotencyKey: idem });
    assert.equal(rb.status, 200);
    assert.notEqual(ra.body.id, rb.body.id);
  });

  test('a replay from another network or on a later UTC day is 409 and creates nothing', async () => {
    const { key, accountId } = await h.account();
    const idem = crypto.randomUUID();
    const headers = { 'x-forwarded-for': '198.51.100.7' };
    await h.createLink({ target: 'https://example.org/n' }, { key, idempotencyKey: idem, headers });
    const elsewhere = await h.createLink({ target: 'https://example.org/n' }, { key, idempotencyKey: idem, headers: { 'x-forwarded-for': '198.51.100.8' } });
    assert.deepEqual([elsewhere.status, elsewhere.body], [409, { error: 'request_conflict' }]);
    h.clock.advance(86_400_000);
    const tomorrow = await h.createLink({ target: 'https://example.org/n' }, { key, idempotencyKey: idem, headers });
    assert.deepEqual([tomorrow.status, tomorrow.body], [409, { error: 'request_conflict' }]);
    assert.equal(await h.linkCount(accountId), 1);
  });

  test('many parallel requests with one key create exactly one link', async () => {
    const { key, accountId } = await h.account();
    const idem = crypto.randomUUID();
    const results = await Promise.all(Array.from({ length: 30 }, () => h.createLink({ target: 'https://example.org/p' }, { key, idempotencyKey: idem })));
    const ok = results.filter((r) => r.status === 200);
    assert.ok(ok.length >= 1);
    assert.ok(
      results.every((r) => r.status === 200 || (r.status === 409 && r.body.error === 'request_conflict')),
      JSON.stringify(results.map((r) => r.status)),
    );
    assert.equal(new Set(ok.map((r) => r.body.id)).size, 1);
    assert.equal(await h.linkCount(accountId), 1);
    const after = await h.createLink({ target: 'https://example.org/p' }, { key, idempotencyKey: idem });
    assert.equal(after.body.id, ok[0]!.body.id);
  });

  test('many parallel requests with different keys each create their link', async () => {
    const { key, accountId } = await h.account();
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => h.createLink({ target: `https://example.org/${i}` }, { key })));
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(await h.linkCount(accountId), 25);
  });

  test('a failed request leaves no record: the same key succeeds once the cause is fixed', async () => {
    const { key, accountId } = await h.account();
    const idem = crypto.randomUUID();
    const alias = `taken-${crypto.randomBytes(4).toString('hex')}`;
    const other = await h.account();
    await h.createLink({ target: 'https://example.org/o', alias }, { key: other.key });
    const conflict = await h.createLink({ target: 'https://example.org/o', alias }, { key, idempotencyKey: idem });
    assert.equal(conflict.status, 409);
    await h.database.db
      .updateTable('links')
      .set({ slug: `${alias}-moved` })
      .where('slug', '=', alias)
      .execute();
    const retry = await h.createLink({ target: 'https://example.org/o', alias }, { key, idempotencyKey: idem });
    assert.equal(retry.status, 200);
    assert.equal(await h.linkCount(accountId), 1);
  });

  test('a claim left by a crashed request is 409 while it may still be running, then taken over', async () => {
    const { key, accountId } = await h.account();
    const idem = crypto.randomUUID();
    // What a request that died between claiming the key and finishing leaves behind.
    const id = fingerprint({ op: 'POST /links', caller: `account:${accountId}`, idempotencyKey: idem });
    await h.database.db
      .insertInto('idempotency_keys')
      .values({ id, fingerprint: 'x', network: 'x', day: 'x', response: '', sealed_secret: null, created_at: h.clock.now() })
      .execute();
    const early = await h.createLink({ target: 'https://example.org/crash' }, { key, idempotencyKey: idem });
    assert.deepEqual([early.status, early.body], [409, { error: 'request_conflict' }]);
    h.clock.advance(60_001);
    const late = await h.createLink({ target: 'https://example.org/crash' }, { key, idempotencyKey: idem });
    assert.equal(late.status, 200);
    const replay = await h.createLink({ target: 'https://example.org/crash' }, { key, idempotencyKey: idem });
    assert.equal(replay.body.id, late.body.id);
    assert.equal(await h.linkCount(accountId), 1);
  });
});

eachDatabase('Idempotency-Key is a UUID, read in any case', (kind) => {
  let h: Harness;
  before(async () => {
    // No free links: every creation is paid.
    h = await Harness.start(kind, { FREE_LINKS_PER_MONTH: '0' });
  });
  after(async () => h.close());

  const balance = async (key: string) => (await h.request('GET', '/account/usage', { key })).body.purchasedBalance;

  test('a paid creation retried with its key in upper case or as a urn:uuid is replayed, and charged once', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '100' });
    const idem = crypto.randomUUID();
    const body = { target: 'https://example.org/paid', maxCredits: 10 };
    const first = await h.createLink(body, { key, idempotencyKey: idem });
    assert.equal(first.status, 200, first.text);
    for (const spelling of [idem.toUpperCase(), `urn:uuid:${idem}`, `URN:UUID:${idem.toUpperCase()}`]) {
      const retry = await h.createLink(body, { key, idempotencyKey: spelling });
      assert.deepEqual([retry.status, retry.body], [200, first.body], spelling);
    }
    assert.equal(await balance(key), 90);
    const links = await h.database.db.selectFrom('links').select('id').where('account_id', '=', accountId).execute();
    assert.equal(links.length, 1);
  });

  test('a capacity pack bought again with its key in upper case is the same pack, paid once', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '100' });
    const idem = crypto.randomUUID();
    const buy = (idempotencyKey: string) =>
      h.request('POST', '/links/capacity', { key, body: { maxCredits: 50 }, headers: { 'idempotency-key': idempotencyKey } });
    const first = await buy(idem);
    assert.equal(first.status, 200, first.text);
    const retry = await buy(idem.toUpperCase());
    assert.deepEqual([retry.status, retry.body], [200, first.body]);
    assert.equal(await balance(key), 50);
  });
});
