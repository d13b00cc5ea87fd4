import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('keeping trial links in an account (POST /links/{id}/claim)', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, {
      FREE_LINKS_PER_MONTH: '2',
      TRIAL_DAILY_LIMIT: '1000',
      RATE_LIMIT_PER_IP: '1000',
      RATE_LIMIT_PER_ACCOUNT: '1000',
      TRUST_PROXY: '1',
    });
  });
  after(async () => h.close());

  /** Each trial link from its own network: three a day are allowed from one. */
  let network = 0;
  async function trialLink(): Promise<{ id: string; trialToken: string; slug: string }> {
    network++;
    const made = await h.createLink({ target: 'https://example.org/poster' }, { headers: { 'x-forwarded-for': `198.51.100.${network}` } });
    assert.equal(made.status, 200, made.text);
    return made.body;
  }

  test('a claimed trial link becomes the account’s, with no expiry, and a repeat claim returns it unchanged', async () => {
    const { key, accountId } = await h.account();
    const trial = await trialLink();
    const first = await h.request('POST', `/links/${trial.id}/claim`, { key, body: { trialToken: trial.trialToken } });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.slug, trial.slug);
    assert.equal(first.body.trial, false);
    assert.equal(first.body.expiresAt, undefined);
    const again = await h.request('POST', `/links/${trial.id}/claim`, { key, body: { trialToken: trial.trialToken } });
    assert.deepEqual(again.body, first.body);
    assert.equal(await h.linkCount(accountId), 1);
    const listed = await h.request('GET', '/links', { key });
    assert.deepEqual(
      listed.body.links.map((l: { id: string }) => l.id),
      [trial.id],
    );
    // The trial token no longer reads the account's link.
    const byToken = await h.request('GET', `/links/${trial.id}`, { headers: { 'x-service-trial-token': trial.trialToken } });
    assert.equal(byToken.status, 401);
  });

  test('a claimed link still redirects after the trial’s 7 days', async () => {
    const { key } = await h.account();
    const trial = await trialLink();
    assert.equal((await h.request('POST', `/links/${trial.id}/claim`, { key, body: { trialToken: trial.trialToken } })).status, 200);
    h.clock.advance(8 * 86_400_000);
    const visit = await h.request('GET', `/s/${trial.slug}`);
    assert.equal(visit.status, 302);
  });

  test('a wrong token, another account’s claim and an unknown id are 404 not_found', async () => {
    const a = await h.account();
    const b = await h.account();
    const trial = await trialLink();
    const other = await trialLink();
    const wrong = await h.request('POST', `/links/${trial.id}/claim`, { key: a.key, body: { trialToken: other.trialToken } });
    assert.deepEqual([wrong.status, wrong.body], [404, { error: 'not_found' }]);
    assert.equal((await h.request('POST', `/links/${trial.id}/claim`, { key: a.key, body: { trialToken: trial.trialToken } })).status, 200);
    const taken = await h.request('POST', `/links/${trial.id}/claim`, { key: b.key, body: { trialToken: trial.trialToken } });
    assert.deepEqual([taken.status, taken.body], [404, { error: 'not_found' }]);
    const unknown = await h.request('POST', `/links/${crypto.randomUUID()}/claim`, { key: a.key, body: { trialToken: trial.trialToken } });
    assert.equal(unknown.status, 404);
  });

  test('an expired trial link cannot be kept: 410 link_expired', async () => {
    const { key } = await h.account();
    const trial = await trialLink();
    h.clock.advance(8 * 86_400_000);
    const late = await h.request('POST', `/links/${trial.id}/claim`, { key, body: { trialToken: trial.trialToken } });
    assert.deepEqual([late.status, late.body], [410, { error: 'link_expired' }]);
  });

  test('a claim counts as a free link of the month, and past them is priced and paid only when allowed', async () => {
    const { key, accountId } = await h.account();
    await h.createLink({ target: 'https://example.org/1' }, { key });
    const second = await trialLink();
    assert.equal((await h.request('POST', `/links/${second.id}/claim`, { key, body: { trialToken: second.trialToken } })).status, 200);
    const third = await trialLink();
    const refused = await h.request('POST', `/links/${third.id}/claim`, { key, body: { trialToken: third.trialToken } });
    assert.deepEqual([refused.status, refused.body], [402, { error: 'link_allowance_required' }]);
    const broke = await h.request('POST', `/links/${third.id}/claim`, { key, body: { trialToken: third.trialToken, maxCredits: 10 } });
    assert.deepEqual([broke.status, broke.body], [402, { error: 'credits_required' }]);
    await h.cli('credits grant', { account: accountId, credits: '25' });
    const paid = await h.request('POST', `/links/${third.id}/claim`, { key, body: { trialToken: third.trialToken, maxCredits: 10 } });
    assert.equal(paid.status, 200, paid.text);
    const again = await h.request('POST', `/links/${third.id}/claim`, { key, body: { trialToken: third.trialToken, maxCredits: 10 } });
    assert.equal(again.status, 200);
    const usage = await h.request('GET', '/account/usage', { key });
    assert.equal(usage.body.purchasedBalance, 15);
  });

  test('without a key, or with a malformed body, the claim is refused', async () => {
    const trial = await trialLink();
    const anonymous = await h.request('POST', `/links/${trial.id}/claim`, { body: { trialToken: trial.trialToken } });
    assert.equal(anonymous.status, 401);
    const { key } = await h.account();
    const malformed = await h.request('POST', `/links/${trial.id}/claim`, { key, body: { trialToken: 'nope' } });
    assert.deepEqual([malformed.status, malformed.body], [400, { error: 'invalid_request' }]);
  });
});
