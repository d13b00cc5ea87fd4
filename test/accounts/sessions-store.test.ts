import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KyselyAccountStore } from '../../src/accounts/account-store.js';
import { KyselySessionStore } from '../../src/accounts/session-store.js';
import { SESSION_IDLE_MS, SESSION_LIFETIME_MS, Sessions } from '../../src/accounts/sessions.js';
import { hashSecret } from '../../src/platform/auth/secrets.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';
import { TestClock } from '../helpers/harness.js';

eachDatabase('sessions in the store', (kind) => {
  let database: TestDatabase;
  const clock = new TestClock();
  let sessions: Sessions;
  let accounts: KyselyAccountStore;

  before(async () => {
    database = await freshDatabase(kind);
    sessions = new Sessions({ store: new KyselySessionStore(database.db), now: clock.now });
    accounts = new KyselyAccountStore(database.db);
  });
  after(() => database.drop());

  const account = (verified = true) =>
    accounts.createAccount({ email: `${crypto.randomUUID()}@example.test`, passwordHash: null, verifiedAt: verified ? clock.now() : null, now: clock.now() });

  test('only the SHA-256 of a session token is stored, never the token', async () => {
    const { id } = await account();
    const { token } = await sessions.start(id);
    const rows = await database.db.selectFrom('sessions').selectAll().where('account_id', '=', id).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.token_hash, hashSecret(token));
    assert.ok(!JSON.stringify(rows).includes(token));
    assert.equal((await sessions.resolve(token))?.accountId, id);
  });

  test('a session unused for the idle time ends, and using it keeps it alive', async () => {
    const { id } = await account();
    const { token } = await sessions.start(id);
    clock.advance(SESSION_IDLE_MS - 60_000);
    assert.ok(await sessions.resolve(token), 'used just before the idle limit');
    clock.advance(SESSION_IDLE_MS - 60_000);
    assert.ok(await sessions.resolve(token), 'the use moved the idle limit on');
    clock.advance(SESSION_IDLE_MS);
    assert.equal(await sessions.resolve(token), undefined);
    assert.equal(await database.db.selectFrom('sessions').select('id').where('account_id', '=', id).executeTakeFirst(), undefined);
  });

  test('a session ends at its absolute lifetime however often it is used', async () => {
    const { id } = await account();
    const { token, expiresAt } = await sessions.start(id);
    assert.equal(expiresAt, clock.now() + SESSION_LIFETIME_MS);
    while (clock.now() + SESSION_IDLE_MS / 2 < expiresAt) {
      clock.advance(SESSION_IDLE_MS / 2);
      assert.ok(await sessions.resolve(token));
    }
    clock.ms = expiresAt;
    assert.equal(await sessions.resolve(token), undefined);
  });

  test('a revoked session is unknown at once', async () => {
    const { id } = await account();
    const { token } = await sessions.start(id);
    const session = await sessions.resolve(token);
    await sessions.revoke(session!.sessionId);
    assert.equal(await sessions.resolve(token), undefined);
  });

  test('revoking all sessions of an account can spare one and leaves other accounts alone', async () => {
    const [mine, theirs] = [await account(), await account()];
    const kept = await sessions.start(mine.id);
    const ended = await sessions.start(mine.id);
    const other = await sessions.start(theirs.id);
    const keep = await sessions.resolve(kept.token);
    assert.equal(await sessions.revokeAll(mine.id, keep!.sessionId), 1);
    assert.ok(await sessions.resolve(kept.token));
    assert.equal(await sessions.resolve(ended.token), undefined);
    assert.ok(await sessions.resolve(other.token));
  });

  test('a session of an unverified account does not resolve', async () => {
    const { id } = await account(false);
    const { token } = await sessions.start(id);
    assert.equal(await sessions.resolve(token), undefined);
  });

  test('purging removes the sessions past either expiry and keeps the live ones', async () => {
    const { id } = await account();
    const idle = await sessions.start(id);
    clock.advance(SESSION_IDLE_MS - 1000);
    const live = await sessions.start(id);
    clock.advance(2000);
    assert.ok((await sessions.purge()) >= 1);
    assert.equal(await database.db.selectFrom('sessions').select('id').where('token_hash', '=', hashSecret(idle.token)).executeTakeFirst(), undefined);
    assert.ok(await sessions.resolve(live.token));
  });

  test('tokens that are not 32 random bytes in base64url are refused without a lookup', async () => {
    assert.equal(await sessions.resolve('short'), undefined);
    assert.equal(await sessions.resolve(`${'a'.repeat(42)}=`), undefined);
  });
});
