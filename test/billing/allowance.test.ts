import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('the free monthly allowance of 25 links', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('the 26th link of a UTC month with maxCredits 0 is 402 link_allowance_required', async () => {
    const { key } = await h.account();
    for (let i = 0; i < 25; i++) assert.equal((await h.createLink({ target: `https://example.org/${i}` }, { key })).status, 200);
    const extra = await h.createLink({ target: 'https://example.org/26' }, { key });
    assert.deepEqual([extra.status, extra.body], [402, { error: 'link_allowance_required' }]);
    const explicit = await h.createLink({ target: 'https://example.org/26', maxCredits: 0 }, { key });
    assert.equal(explicit.status, 402);
  });

  test('the allowance is shared by every key of the account', async () => {
    const { key, accountId } = await h.account();
    const second = await h.keyFor(accountId);
    for (let i = 0; i < 25; i++) await h.createLink({ target: `https://example.org/${i}` }, { key: i % 2 ? key : second });
    assert.equal((await h.createLink({ target: 'https://example.org/x' }, { key: second })).status, 402);
    assert.equal((await h.createLink({ target: 'https://example.org/x' }, { key })).status, 402);
  });

  test('parallel creations never exceed the allowance', async () => {
    const { key, accountId } = await h.account();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => h.createLink({ target: `https://example.org/${i}` }, { key })));
    assert.equal(results.filter((r) => r.status === 200).length, 25);
    assert.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 402 && r.body.error === 'link_allowance_required'));
    assert.equal(await h.linkCount(accountId), 25);
  });

  test('the allowance resets at the start of the next UTC month', async () => {
    const { key } = await h.account();
    for (let i = 0; i < 25; i++) await h.createLink({ target: `https://example.org/${i}` }, { key });
    assert.equal((await h.createLink({ target: 'https://example.org/late' }, { key })).status, 402);
    const now = new Date(h.clock.now());
    h.clock.ms = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - 1;
    assert.equal((await h.createLink({ target: 'https://example.org/still' }, { key })).status, 402);
    h.clock.advance(1);
    assert.equal((await h.createLink({ target: 'https://example.org/new-month' }, { key })).status, 200);
  });

  test('a failed creation does not use up a free link', async () => {
    const { key } = await h.account();
    for (let i = 0; i < 24; i++) await h.createLink({ target: `https://example.org/${i}` }, { key });
    const other = await h.account();
    await h.createLink({ target: 'https://example.org/', alias: `held-${h.clock.now()}-${kind}` }, { key: other.key });
    const taken = await h.createLink({ target: 'https://example.org/', alias: `held-${h.clock.now()}-${kind}` }, { key });
    assert.equal(taken.status, 409);
    assert.equal((await h.createLink({ target: 'https://example.org/25th' }, { key })).status, 200);
  });
});
