import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

/** Free allowance 0 so that every link is an extra link. */
eachDatabase('extra links paid with purchased credits', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { FREE_LINKS_PER_MONTH: '0' });
  });
  after(async () => h.close());

  const balance = async (accountId: string) =>
    h.database.db.selectFrom('accounts').select(['purchased_balance', 'reserved_credits']).where('id', '=', accountId).executeTakeFirstOrThrow();

  test('with maxCredits 10 and credits:spend an extra link costs 10 purchased credits', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '25' });
    const res = await h.createLink({ target: 'https://example.org/paid', maxCredits: 10 }, { key });
    assert.equal(res.status, 200);
    assert.deepEqual(await balance(accountId), { purchased_balance: 15, reserved_credits: 0 });
    const ledger = await h.database.db.selectFrom('credit_ledger').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute();
    assert.deepEqual(
      ledger.map((r) => [r.kind, r.amount, r.balance_after]),
      [
        ['grant', 25, 25],
        ['link_spend', -10, 15],
      ],
    );
    assert.equal(ledger[1]!.reference, res.body.id);
  });

  test('without maxCredits the extra link is 402 link_allowance_required and spends nothing', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '25' });
    const res = await h.createLink({ target: 'https://example.org/' }, { key });
    assert.deepEqual([res.status, res.body], [402, { error: 'link_allowance_required' }]);
    assert.equal((await balance(accountId)).purchased_balance, 25);
  });

  test('without the credits:spend scope it is 403 api_scope_required', async () => {
    const { accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '25' });
    const key = await h.keyFor(accountId, 'links:read,links:write');
    const res = await h.createLink({ target: 'https://example.org/', maxCredits: 10 }, { key });
    assert.deepEqual([res.status, res.body], [403, { error: 'api_scope_required' }]);
    assert.equal((await balance(accountId)).purchased_balance, 25);
  });

  test('a balance below 10 is 402 credits_required', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '9' });
    const res = await h.createLink({ target: 'https://example.org/', maxCredits: 10 }, { key });
    assert.deepEqual([res.status, res.body], [402, { error: 'credits_required' }]);
    assert.deepEqual(await balance(accountId), { purchased_balance: 9, reserved_credits: 0 });
  });

  test("a key's monthly budget is enforced: 402 api_budget_exceeded, and it resets in a new UTC month", async () => {
    const { accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '100' });
    const key = (await h.cli('keys create', { account: accountId, scopes: 'links:read,links:write,credits:spend', budget: '20' })).key;
    assert.equal((await h.createLink({ target: 'https://example.org/1', maxCredits: 10 }, { key })).status, 200);
    assert.equal((await h.createLink({ target: 'https://example.org/2', maxCredits: 10 }, { key })).status, 200);
    const over = await h.createLink({ target: 'https://example.org/3', maxCredits: 10 }, { key });
    assert.deepEqual([over.status, over.body], [402, { error: 'api_budget_exceeded' }]);
    assert.equal((await balance(accountId)).purchased_balance, 80);
    const other = await h.keyFor(accountId);
    assert.equal((await h.createLink({ target: 'https://example.org/other-key', maxCredits: 10 }, { key: other })).status, 200);
    const usage = await h.request('GET', '/account/usage', { key });
    assert.deepEqual([usage.body.keyBudget, usage.body.keySpent], [20, 20]);
    const now = new Date(h.clock.now());
    h.clock.ms = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    const fresh = await h.request('GET', '/account/usage', { key });
    assert.equal(fresh.body.keySpent, 0);
    assert.equal((await h.createLink({ target: 'https://example.org/4', maxCredits: 10 }, { key })).status, 200);
  });

  test('a failed write spends nothing: a taken alias on a paid link leaves the balance whole', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '10' });
    const alias = `paid-${crypto.randomBytes(4).toString('hex')}`;
    assert.equal((await h.createLink({ target: 'https://example.org/', alias, maxCredits: 10 }, { key })).status, 200);
    await h.cli('credits grant', { account: accountId, credits: '10' });
    const dup = await h.createLink({ target: 'https://example.org/', alias, maxCredits: 10 }, { key });
    assert.deepEqual([dup.status, dup.body], [409, { error: 'request_conflict' }]);
    assert.deepEqual(await balance(accountId), { purchased_balance: 10, reserved_credits: 0 });
    const spent = await h.request('GET', '/account/usage', { key });
    assert.equal(spent.body.keySpent, 10);
  });

  test('a replayed paid creation returns the first link and spends nothing more', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '30' });
    const idem = crypto.randomUUID();
    const first = await h.createLink({ target: 'https://example.org/r', maxCredits: 10 }, { key, idempotencyKey: idem });
    const again = await Promise.all([1, 2, 3].map(() => h.createLink({ target: 'https://example.org/r', maxCredits: 10 }, { key, idempotencyKey: idem })));
    for (const r of again) assert.ok(r.status === 409 || r.body.id === first.body.id);
    assert.deepEqual(await balance(accountId), { purchased_balance: 20, reserved_credits: 0 });
    assert.equal(await h.linkCount(accountId), 1);
  });

  test('parallel extra links never overdraw the balance', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '55' });
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => h.createLink({ target: `https://example.org/${i}`, maxCredits: 10 }, { key })));
    assert.equal(results.filter((r) => r.status === 200).length, 5);
    assert.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 402 && r.body.error === 'credits_required'));
    assert.deepEqual(await balance(accountId), { purchased_balance: 5, reserved_credits: 0 });
    assert.equal(await h.linkCount(accountId), 5);
  });

  test('parallel extra links never exceed the key budget', async () => {
    const { accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '1000' });
    const key = (await h.cli('keys create', { account: accountId, scopes: 'links:write,links:read,credits:spend', budget: '70' })).key;
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => h.createLink({ target: `https://example.org/${i}`, maxCredits: 10 }, { key })));
    assert.equal(results.filter((r) => r.status === 200).length, 7);
    assert.ok(results.filter((r) => r.status !== 200).every((r) => r.body.error === 'api_budget_exceeded'));
    assert.deepEqual(await balance(accountId), { purchased_balance: 930, reserved_credits: 0 });
  });

  test('the ledger sums to the balance', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '40' });
    await h.cli('credits grant', { account: accountId, credits: '3' });
    await Promise.all([1, 2, 3].map((i) => h.createLink({ target: `https://example.org/${i}`, maxCredits: 10 }, { key })));
    const sum = await h.database.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.sum<number>('amount').as('s'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(sum.s), (await balance(accountId)).purchased_balance);
    assert.equal(Number(sum.s), 13);
  });
});
