import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { freshDatabase, postgresSkip, type TestDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

/**
 * One Idempotency-Key sent to two instances at once, with credits for one purchase only: the second
 * must not answer a definite 402 while the first is completing the purchase it paid for.
 */
describe('a paid retry racing its original on another instance (postgres)', { skip: postgresSkip }, () => {
  let database: TestDatabase;
  let a: Harness;
  let b: Harness;
  before(async () => {
    database = await freshDatabase('postgres');
    a = await Harness.start('postgres', { FREE_LINKS_PER_MONTH: '0' }, database);
    b = await Harness.start('postgres', { FREE_LINKS_PER_MONTH: '0' }, database);
  });
  after(async () => {
    await a.close({ keepDatabase: true });
    await b.close();
  });

  test('paid links: both answers are the one link, or in flight; never 402 for what was bought', async () => {
    const { key, accountId } = await a.account();
    for (let round = 0; round < 12; round++) {
      await a.cli('credits grant', { account: accountId, credits: '10' });
      const idem = crypto.randomUUID();
      const body = { target: `https://example.org/${round}`, maxCredits: 10 };
      const results = await Promise.all([a.createLink(body, { key, idempotencyKey: idem }), b.createLink(body, { key, idempotencyKey: idem })]);
      const ok = results.filter((r) => r.status === 200);
      assert.ok(ok.length >= 1, JSON.stringify(results.map((r) => r.body)));
      assert.ok(
        results.every((r) => r.status === 200 || r.body.error === 'request_conflict'),
        JSON.stringify(results.map((r) => r.body)),
      );
      assert.equal(new Set(ok.map((r) => r.body.id)).size, 1);
    }
    const account = await database.db
      .selectFrom('accounts')
      .select(['purchased_balance', 'reserved_credits'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(account, { purchased_balance: 0, reserved_credits: 0 });
  });

  test('capacity packs: the same, for one pack', async () => {
    const { key, accountId } = await a.account();
    for (let round = 0; round < 8; round++) {
      await a.cli('credits grant', { account: accountId, credits: '50' });
      const headers = { 'idempotency-key': crypto.randomUUID() };
      const buy = (h: Harness) => h.request('POST', '/links/capacity', { key, body: { maxCredits: 50 }, headers });
      const results = await Promise.all([buy(a), buy(b)]);
      const ok = results.filter((r) => r.status === 200);
      assert.ok(ok.length >= 1 && results.every((r) => r.status === 200 || r.body.error === 'request_conflict'), JSON.stringify(results.map((r) => r.body)));
      assert.equal(new Set(ok.map((r) => r.body.id)).size, 1);
    }
    const packs = await database.db.selectFrom('capacity_packs').select('id').where('account_id', '=', accountId).execute();
    assert.equal(packs.length, 8);
  });
});
