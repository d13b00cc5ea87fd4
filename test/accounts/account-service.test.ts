import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { AccountService } from '../../src/accounts/account-service.js';
import { KyselyAccountStore } from '../../src/accounts/account-store.js';
import { KEY_USE_RESOLUTION_MS } from '../../src/platform/auth/api-key-resolver.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

/** Polls until the check passes or the deadline ends; the key's use is written after the answer. */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, deadlineMs = 5000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

eachDatabase('accounts service', (kind) => {
  let h: Harness;
  let accounts: AccountService;
  before(async () => {
    h = await Harness.start(kind);
    accounts = new AccountService({
      accounts: new KyselyAccountStore(h.database.db),
      now: h.clock.now,
      passwordHashLogN: h.config.accounts.passwordHashLogN,
    });
  });
  after(async () => h.close());

  const newAccount = () => accounts.createAccount({ email: `${crypto.randomUUID()}@example.test`, verified: true });

  test('listKeys shows each unrevoked key by name, prefix and last four, never its secret, newest first', async () => {
    const { id: accountId } = await newAccount();
    const first = await accounts.createKey(accountId, { scopes: ['links:read'], name: 'first' });
    h.clock.advance(1000);
    const second = await accounts.createKey(accountId, { scopes: ['links:read', 'credits:spend'], budget: 40, name: 'second' });
    h.clock.advance(1000);
    const revoked = await accounts.createKey(accountId, { scopes: ['links:read'] });
    await accounts.revokeKey(revoked.id, accountId);
    const listed = await accounts.listKeys(accountId);
    assert.deepEqual(
      listed.map((k) => [k.id, k.name, k.prefix, k.last4, k.scopes, k.budget, k.spentThisMonth, k.lastUsedAt]),
      [
        [second.id, 'second', second.key.slice(0, 12), second.key.slice(-4), ['links:read', 'credits:spend'], 40, 0, null],
        [first.id, 'first', first.key.slice(0, 12), first.key.slice(-4), ['links:read'], null, 0, null],
      ],
    );
    assert.match(listed[0]!.prefix!, /^shl_live_.{3}$/);
    assert.equal(JSON.stringify(listed).includes(second.key.slice(12, -4)), false, 'no secret beyond prefix and last four');
  });

  test('a key used on the API shows when, and what it spent this month', async () => {
    const { id: accountId } = await newAccount();
    await accounts.grantCredits(accountId, 100);
    const key = await accounts.createKey(accountId, { scopes: ['links:read', 'credits:spend'] });
    const bought = await h.request('POST', '/links/capacity', { key: key.key, body: { maxCredits: 50 }, headers: { 'idempotency-key': crypto.randomUUID() } });
    assert.equal(bought.status, 200, bought.text);
    const listed = await eventually(
      () => accounts.listKeys(accountId),
      ([k]) => k?.lastUsedAt !== null,
    );
    assert.deepEqual([listed[0]!.lastUsedAt, listed[0]!.spentThisMonth], [h.clock.now(), 50]);
  });

  test('last use is written at most once a minute per key', async () => {
    const { id: accountId } = await newAccount();
    const key = await accounts.createKey(accountId, { scopes: ['links:read'] });
    const firstUse = h.clock.now();
    assert.equal((await h.request('GET', '/links', { key: key.key })).status, 200);
    await eventually(
      () => accounts.listKeys(accountId),
      ([k]) => k?.lastUsedAt === firstUse,
    );
    h.clock.advance(KEY_USE_RESOLUTION_MS - 1);
    assert.equal((await h.request('GET', '/links', { key: key.key })).status, 200);
    h.clock.advance(1);
    assert.equal((await h.request('GET', '/links', { key: key.key })).status, 200);
    const [listed] = await eventually(
      () => accounts.listKeys(accountId),
      ([k]) => k?.lastUsedAt !== firstUse,
    );
    assert.equal(listed!.lastUsedAt, firstUse + KEY_USE_RESOLUTION_MS);
  });

  test('a request the key is refused (a scope it lacks) does not count as a use', async () => {
    const { id: accountId } = await newAccount();
    const key = await accounts.createKey(accountId, { scopes: ['links:read'] });
    const refused = await h.request('PATCH', `/links/${crypto.randomUUID()}`, { key: key.key, body: { version: 1, title: 'x' } });
    assert.equal(refused.status, 403);
    // A served request afterwards is written; had the refused one been, this one would find the minute taken.
    h.clock.advance(1);
    assert.equal((await h.request('GET', '/links', { key: key.key })).status, 200);
    const [listed] = await eventually(
      () => accounts.listKeys(accountId),
      ([k]) => k?.lastUsedAt !== null,
    );
    assert.equal(listed!.lastUsedAt, h.clock.now());
  });

  test('with an account, only that account’s key can be revoked: another’s is not found', async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const key = await accounts.createKey(owner.id, { scopes: ['links:read'] });
    await assert.rejects(accounts.revokeKey(key.id, other.id), { code: 'not_found' });
    assert.equal((await h.request('GET', '/links', { key: key.key })).status, 200);
    assert.deepEqual(await accounts.revokeKey(key.id, owner.id), { id: key.id, revoked: true });
    assert.equal((await h.request('GET', '/links', { key: key.key })).status, 401);
  });

  test('key options are checked: known scopes, a whole non-negative budget, an existing account', async () => {
    const { id: accountId } = await newAccount();
    await assert.rejects(accounts.createKey(accountId, { scopes: ['links:delete'] }), { code: 'invalid_request' });
    await assert.rejects(accounts.createKey(accountId, { scopes: [] }), { code: 'invalid_request' });
    await assert.rejects(accounts.createKey(accountId, { scopes: ['links:read'], budget: 1.5 }), { code: 'invalid_request' });
    await assert.rejects(accounts.createKey(crypto.randomUUID(), { scopes: ['links:read'] }), { code: 'not_found' });
    assert.deepEqual(await accounts.listKeys(accountId), []);
  });

  test('an account made with a password signs in with it; one made without signs in with nothing', async () => {
    const email = `${crypto.randomUUID()}@Example.test`;
    const made = await accounts.createAccount({ email, password: 'a fine password', verified: true });
    assert.deepEqual(await accounts.checkPassword(email.toUpperCase(), 'a fine password'), { id: made.id, email: email.toLowerCase(), verified: true });
    assert.equal(await accounts.checkPassword(email, 'a wrong password'), undefined);
    const bare = await newAccount();
    assert.equal(await accounts.checkPassword(bare.email, ''), undefined);
    await assert.rejects(accounts.createAccount({ email, verified: false }), { code: 'request_conflict' });
  });
});
