import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { UA } from '../helpers/analytics.js';

/** A person's browser: bots are never charged against the allowance. */
const PERSON = { headers: { 'user-agent': UA.iphone } };

eachDatabase('usage reports recorded visits and the recording allowance', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { FREE_VISITS_PER_MONTH: '6' });
  });
  after(async () => h.close());

  test('recorded visits, free allowance left and bought pack capacity add up', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '50' });
    const link = await h.createLink({ target: 'https://example.org/u' }, { key });
    for (let i = 0; i < 4; i++) assert.equal((await h.request('GET', `/s/${link.body.slug}`, PERSON)).status, 302);
    await h.app.visitRecorder.flush();
    const before = await h.request('GET', '/account/usage', { key });
    assert.deepEqual(before.body.visits, { recordedThisMonth: 4, allowanceLeft: 2, freeLeft: 2, packsLeft: 0 });
    const pack = await h.request('POST', '/links/capacity', { key, body: { maxCredits: 50 }, headers: { 'idempotency-key': crypto.randomUUID() } });
    assert.equal(pack.status, 200);
    for (let i = 0; i < 5; i++) await h.request('GET', `/q/${link.body.slug}`, PERSON);
    await h.app.visitRecorder.flush();
    const after = await h.request('GET', '/account/usage', { key });
    assert.deepEqual(after.body.visits, { recordedThisMonth: 9, allowanceLeft: 9997, freeLeft: 0, packsLeft: 9997 });
    assert.equal(after.body.purchasedBalance, 0);
  });

  test('free visits reset at the start of a UTC month; a pack carries forward what it has left', async () => {
    const { key, accountId } = await h.account();
    await h.cli('credits grant', { account: accountId, credits: '50' });
    const link = await h.createLink({ target: 'https://example.org/m' }, { key });
    const visit = async (n: number) => {
      for (let i = 0; i < n; i++) assert.equal((await h.request('GET', `/s/${link.body.slug}`, PERSON)).status, 302);
      await h.app.visitRecorder.flush();
    };
    await visit(6);
    await h.request('POST', '/links/capacity', { key, body: { maxCredits: 50 }, headers: { 'idempotency-key': crypto.randomUUID() } });
    await visit(4);
    const used = await h.request('GET', '/account/usage', { key });
    assert.deepEqual(used.body.visits, { recordedThisMonth: 10, allowanceLeft: 9996, freeLeft: 0, packsLeft: 9996 });
    const d = new Date(h.clock.now());
    h.clock.ms = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1, 0, 0, 1);
    await visit(2);
    const next = await h.request('GET', '/account/usage', { key });
    assert.deepEqual(next.body.visits, { recordedThisMonth: 2, allowanceLeft: 10000, freeLeft: 4, packsLeft: 9996 });
  });
});
