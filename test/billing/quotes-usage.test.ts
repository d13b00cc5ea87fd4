import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('quotes and usage', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { FREE_LINKS_PER_MONTH: '2', TRACKING_DAILY_LIMIT: '7000' });
  });
  after(async () => h.close());

  const quote = (key: string, action: string) => h.request('POST', '/quotes', { key, body: { action } });

  test('a link.create quote is free while free links remain, then costs 10; nothing is reserved', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '15' });
    const free = await quote(key, 'link.create');
    assert.equal(free.status, 200);
    assert.deepEqual(free.body, {
      action: 'link.create',
      credits: 0,
      maxCredits: 10,
      budgetRemaining: 15,
      purchasedAvailable: 15,
      canSpend: true,
      freeLinks: 2,
      quoteIsEstimate: true,
      trackingDailyServiceLimit: 7000,
    });
    await h.createLink({ target: 'https://example.org/1' }, { key });
    await h.createLink({ target: 'https://example.org/2' }, { key });
    const paid = await quote(key, 'link.create');
    assert.deepEqual([paid.body.credits, paid.body.freeLinks, paid.body.canSpend], [10, 0, true]);
    assert.equal((await quote(key, 'link.create')).body.purchasedAvailable, 15);
    await h.createLink({ target: 'https://example.org/3', maxCredits: 10 }, { key });
    const broke = await quote(key, 'link.create');
    assert.deepEqual([broke.body.purchasedAvailable, broke.body.canSpend], [5, false]);
  });

  test('canSpend follows the key: scopes and budget', async () => {
    const { accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '100' });
    const readOnly = await h.keyFor(accountId, 'links:read');
    const q1 = await quote(readOnly, 'link.create');
    assert.equal(q1.body.canSpend, false);
    const budgeted = (await h.cli('keys create', { account: accountId, scopes: 'links:read,credits:spend', budget: '40' })).key;
    const q2 = await quote(budgeted, 'tracking.purchase');
    assert.deepEqual([q2.body.credits, q2.body.maxCredits, q2.body.budgetRemaining, q2.body.canSpend], [50, 50, 40, false]);
    const spender = await h.keyFor(accountId, 'links:read,credits:spend');
    const q3 = await quote(spender, 'tracking.purchase');
    assert.deepEqual([q3.body.budgetRemaining, q3.body.canSpend], [100, true]);
  });

  test('quotes validate their body and need links:read', async () => {
    const { key, accountId } = await h.account();
    for (const body of [{}, { action: 'link.delete' }, { action: 'link.create', extra: 1 }]) {
      const res = await h.request('POST', '/quotes', { key, body });
      assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }]);
    }
    const spendOnly = await h.keyFor(accountId, 'credits:spend');
    assert.deepEqual((await quote(spendOnly, 'link.create')).body, { error: 'api_scope_required' });
  });

  test('usage reports the link summary, visits, balance, key budget and pricing', async () => {
    const { accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '60' });
    const key = (await h.cli('keys create', { account: accountId, scopes: 'links:read,links:write,credits:spend', budget: '30' })).key;
    await h.createLink({ target: 'https://example.org/1' }, { key });
    await h.createLink({ target: 'https://example.org/2' }, { key });
    await h.createLink({ target: 'https://example.org/3', maxCredits: 10 }, { key });
    const res = await h.request('GET', '/account/usage', { key });
    assert.equal(res.status, 200);
    const month = new Date(h.clock.now()).toISOString().slice(0, 7);
    assert.equal(res.body.month, month);
    assert.deepEqual(res.body.links, { createdThisMonth: 3, freeLeft: 0, total: 3 });
    assert.deepEqual([res.body.purchasedBalance, res.body.keyBudget, res.body.keySpent], [50, 30, 10]);
    assert.deepEqual(res.body.pricing, {
      extraLinkCredits: 10,
      capacityPackCredits: 50,
      capacityPackVisits: 10000,
      freeLinksPerMonth: 2,
      freeVisitsPerMonth: 5000,
      trackingDailyServiceLimit: 7000,
    });
    assert.deepEqual(Object.keys(res.body.visits).sort(), ['allowanceLeft', 'freeLeft', 'packsLeft', 'recordedThisMonth']);
    const d = new Date(h.clock.now());
    assert.equal(res.body.resetAt, Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  });

  test('a key without a budget reports keyBudget null', async () => {
    const { key } = await h.account();
    const res = await h.request('GET', '/account/usage', { key });
    assert.deepEqual([res.body.keyBudget, res.body.keySpent, res.body.purchasedBalance], [null, 0, 0]);
  });

  test('a new month resets the link summary but not the total', async () => {
    const { key } = await h.account();
    await h.createLink({ target: 'https://example.org/1' }, { key });
    const d = new Date(h.clock.now());
    h.clock.ms = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    const res = await h.request('GET', '/account/usage', { key });
    assert.deepEqual(res.body.links, { createdThisMonth: 0, freeLeft: 2, total: 1 });
  });
});
