import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('editing links', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  async function newLink(key: string, body: object = {}) {
    const res = await h.createLink({ target: 'https://example.org/start', title: 'T', tags: 'a,b', ...body }, { key });
    assert.equal(res.status, 200);
    return res.body;
  }

  test('a PATCH changes only the given fields, raises the version by one and keeps both URLs', async () => {
    const { key } = await h.account();
    const link = await newLink(key);
    h.clock.advance(1000);
    const res = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 1, target: 'https://example.org/next' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.target, 'https://example.org/next');
    assert.equal(res.body.version, 2);
    assert.equal(res.body.title, 'T');
    assert.equal(res.body.tags, 'a,b');
    assert.equal(res.body.shortUrl, link.shortUrl);
    assert.equal(res.body.qrUrl, link.qrUrl);
    assert.equal(res.body.created_at, link.created_at);
    assert.equal(res.body.updated_at, link.created_at + 1000);
    const again = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 2, title: 'New', tags: '' } });
    assert.deepEqual([again.body.version, again.body.title, again.body.tags, again.body.target], [3, 'New', '', 'https://example.org/next']);
  });

  test('a stale version is refused with 409 link_changed and changes nothing', async () => {
    const { key } = await h.account();
    const link = await newLink(key);
    await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 1, title: 'first' } });
    const stale = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 1, title: 'second', status: 'paused' } });
    assert.deepEqual([stale.status, stale.body], [409, { error: 'link_changed' }]);
    const future = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 9, title: 'third' } });
    assert.deepEqual([future.status, future.body], [409, { error: 'link_changed' }]);
    const read = await h.request('GET', `/links/${link.id}`, { key });
    assert.deepEqual([read.body.title, read.body.status, read.body.version], ['first', 'active', 2]);
  });

  test('of parallel edits on one version exactly one succeeds, the rest are link_changed', async () => {
    const { key } = await h.account();
    const link = await newLink(key);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => h.request('PATCH', `/links/${link.id}`, { key, body: { version: 1, title: `t${i}` } })),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 200).length, 1);
    assert.equal(statuses.filter((s) => s === 409).length, 19);
    const read = await h.request('GET', `/links/${link.id}`, { key });
    assert.equal(read.body.version, 2);
  });

  test('pause and resume move between active and paused; other statuses cannot be set', async () => {
    const { key } = await h.account();
    const link = await newLink(key);
    const paused = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 1, status: 'paused' } });
    assert.deepEqual([paused.status, paused.body.status, paused.body.version], [200, 'paused', 2]);
    const active = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 2, status: 'active' } });
    assert.deepEqual([active.status, active.body.status], [200, 'active']);
    for (const status of ['suspended', 'deleted', 'ACTIVE', '']) {
      const res = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 3, status } });
      assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }], status);
    }
  });

  test('a suspended link cannot be edited by its owner: 409 request_conflict', async () => {
    const { key } = await h.account();
    const link = await newLink(key);
    await h.database.db.updateTable('links').set({ status: 'suspended' }).where('id', '=', link.id).execute();
    const res = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 1, status: 'active' } });
    assert.deepEqual([res.status, res.body], [409, { error: 'request_conflict' }]);
  });

  test('PATCH validates its body: version required and ≥ 1, bounds, no extra fields, safe targets', async () => {
    const { key } = await h.account();
    const link = await newLink(key);
    const bodies = [
      {},
      { title: 'x' },
      { version: 0 },
      { version: 1.5 },
      { version: '1' },
      { version: 2_147_483_648 },
      { version: 1e300 },
      { version: 1, title: 'x'.repeat(101) },
      { version: 1, tags: 'x'.repeat(161) },
      { version: 1, alias: 'new' },
      { version: 1, slug: 'new' },
      { version: 1, target: 'javascript:alert(1)' },
      { version: 1, target: 'http://sho.rt/s/loop' },
      { version: 1, target: `https://example.org/${'x'.repeat(2040)}` },
    ];
    for (const body of bodies) {
      const res = await h.request('PATCH', `/links/${link.id}`, { key, body });
      assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }], JSON.stringify(body).slice(0, 80));
    }
    const read = await h.request('GET', `/links/${link.id}`, { key });
    assert.equal(read.body.version, 1);
  });

  test('another account, a read-only key and an unknown id cannot edit', async () => {
    const { key } = await h.account();
    const link = await newLink(key);
    const other = await h.account();
    const foreign = await h.request('PATCH', `/links/${link.id}`, { key: other.key, body: { version: 1, title: 'x' } });
    assert.deepEqual([foreign.status, foreign.body], [404, { error: 'not_found' }]);
    const { accountId } = await h.account();
    const readOnly = await h.keyFor(accountId, 'links:read');
    const scoped = await h.request('PATCH', `/links/${link.id}`, { key: readOnly, body: { version: 1, title: 'x' } });
    assert.deepEqual([scoped.status, scoped.body], [403, { error: 'api_scope_required' }]);
    const missing = await h.request('PATCH', `/links/${crypto.randomUUID()}`, { key, body: { version: 1, title: 'x' } });
    assert.equal(missing.status, 404);
    const read = await h.request('GET', `/links/${link.id}`, { key });
    assert.deepEqual([read.body.version, read.body.title], [1, 'T']);
  });
});
