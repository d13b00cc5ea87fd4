import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { KyselyCreditStore } from '../../src/billing/credit-store.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('recording-capacity packs and reservations', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  const buy = (key: string, idempotencyKey: string = crypto.randomUUID(), body: unknown = { maxCredits: 50 }) =>
    h.request('POST', '/links/capacity', { key, body, headers: { 'idempotency-key': idempotencyKey } });
  const balance = async (accountId: string) =>
    h.database.db.selectFrom('accounts').select(['purchased_balance', 'reserved_credits']).where('id', '=', accountId).executeTakeFirstOrThrow();

  test('a pack costs 50 purchased credits and answers exactly {id, status: active, credits: 50}', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '120' });
    const res = await buy(key);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['credits', 'id', 'status']);
    assert.deepEqual([res.body.status, res.body.credits], ['active', 50]);
    assert.equal((await balance(accountId)).purchased_balance, 70);
    const pack = await h.database.db.selectFrom('capacity_packs').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    assert.deepEqual([pack.account_id, pack.visits, pack.visits_used, pack.status], [accountId, 10000, 0, 'active']);
    const ledger = await h.database.db.selectFrom('credit_ledger').selectAll().where('reference', '=', res.body.id).executeTakeFirstOrThrow();
    assert.deepEqual([ledger.kind, ledger.amount, ledger.balance_after], ['pack_spend', -50, 70]);
  });

  test('the body is exactly {"maxCredits": 50} and the Idempotency-Key is required', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '500' });
    for (const body of [{}, { maxCredits: 10 }, { maxCredits: '50' }, { maxCredits: 50, extra: true }, { maxCredits: 51 }]) {
      const res = await buy(key, crypto.randomUUID(), body);
      assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }], JSON.stringify(body));
    }
    const missing = await h.request('POST', '/links/capacity', { key, body: { maxCredits: 50 } });
    assert.equal(missing.status, 400);
    assert.equal((await balance(accountId)).purchased_balance, 500);
  });

  test('without credits:spend it is 403; a small balance is 402 credits_required; a budget is 402 api_budget_exceeded', async () => {
    const { accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '49' });
    const readOnly = await h.keyFor(accountId, 'links:read,links:write');
    assert.deepEqual((await buy(readOnly)).body, { error: 'api_scope_required' });
    const spender = await h.keyFor(accountId);
    const poor = await buy(spender);
    assert.deepEqual([poor.status, poor.body], [402, { error: 'credits_required' }]);
    await h.cli('credits grant', { account: accountId, credits: '100' });
    const budgeted = (await h.cli('keys create', { account: accountId, scopes: 'credits:spend', budget: '40' })).key;
    const over = await buy(budgeted);
    assert.deepEqual([over.status, over.body], [402, { error: 'api_budget_exceeded' }]);
    assert.deepEqual(await balance(accountId), { purchased_balance: 149, reserved_credits: 0 });
  });

  test('a replay returns the same pack and spends nothing; another payload is 409', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '200' });
    const idem = crypto.randomUUID();
    const first = await buy(key, idem);
    const replays = await Promise.all([1, 2, 3, 4].map(() => buy(key, idem)));
    for (const r of replays) assert.ok(r.status === 409 || r.body.id === first.body.id, JSON.stringify(r.body));
    assert.equal((await buy(key, idem)).body.id, first.body.id);
    assert.equal((await balance(accountId)).purchased_balance, 150);
  });

  test('parallel purchases never overdraw the balance', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '260' });
    const results = await Promise.all(Array.from({ length: 20 }, () => buy(key)));
    assert.equal(results.filter((r) => r.status === 200).length, 5);
    assert.ok(results.filter((r) => r.status !== 200).every((r) => r.body.error === 'credits_required'));
    assert.deepEqual(await balance(accountId), { purchased_balance: 10, reserved_credits: 0 });
  });

  test('an unused pack can be refunded by the operator; a used or refunded one cannot', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '100' });
    const a = (await buy(key)).body.id;
    h.clock.advance(1);
    const b = (await buy(key)).body.id;
    const listed = await h.cli('packs list', { account: accountId });
    assert.deepEqual(
      listed.packs.map((p: { id: string }) => p.id),
      [a, b],
    );
    const refunded = await h.cli('packs refund', { id: a });
    assert.deepEqual([refunded.status, refunded.credits, refunded.purchasedBalance], ['refunded', 50, 50]);
    await assert.rejects(h.cli('packs refund', { id: a }), /refunded already|recorded visits/);
    await h.database.db.updateTable('capacity_packs').set({ visits_used: 1 }).where('id', '=', b).execute();
    await assert.rejects(h.cli('packs refund', { id: b }), /recorded visits/);
    assert.equal((await balance(accountId)).purchased_balance, 50);
    const ledger = await h.database.db.selectFrom('credit_ledger').select(['kind', 'amount']).where('reference', '=', a).orderBy('created_at').execute();
    assert.deepEqual(ledger.map((l) => l.kind).sort(), ['pack_spend', 'refund']);
  });

  test('a reservation left by a crash is released once it expires, and never committed twice', async () => {
    const { accountId, keyId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '50' });
    const credits = new KyselyCreditStore(h.database.db);
    const now = h.clock.now();
    const id = await credits.reserve({ accountId, keyId, budget: null, month: '2026-11', amount: 50, purpose: 'pack', now, ttlMs: 60_000 });
    assert.deepEqual(await balance(accountId), { purchased_balance: 50, reserved_credits: 50 });
    assert.equal(await credits.releaseExpired(now + 59_000), 0);
    assert.equal(await credits.releaseExpired(now + 61_000), 1);
    assert.deepEqual(await balance(accountId), { purchased_balance: 50, reserved_credits: 0 });
    await credits.release(id);
    assert.deepEqual(await balance(accountId), { purchased_balance: 50, reserved_credits: 0 });
    assert.equal(await credits.keySpent(keyId, '2026-11'), 0);
  });

  test('reads report the purchased balance without active reservations', async () => {
    const { key, accountId, keyId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '80' });
    await new KyselyCreditStore(h.database.db).reserve({
      accountId,
      keyId,
      budget: null,
      month: '2026-11',
      amount: 50,
      purpose: 'pack',
      now: h.clock.now(),
      ttlMs: 60_000,
    });
    const usage = await h.request('GET', '/account/usage', { key });
    assert.equal(usage.body.purchasedBalance, 30);
    const quote = await h.request('POST', '/quotes', { key, body: { action: 'tracking.purchase' } });
    assert.deepEqual([quote.body.purchasedAvailable, quote.body.canSpend], [30, false]);
    assert.deepEqual((await buy(key)).body, { error: 'credits_required' });
  });
});
