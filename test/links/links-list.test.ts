import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('listing and searching links', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { FREE_LINKS_PER_MONTH: '1000' });
  });
  after(async () => h.close());

  test('links are listed newest first, 50 a page, with hasMore and offset', async () => {
    const { key } = await h.account();
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) {
      h.clock.advance(1);
      ids.push((await h.createLink({ target: `https://example.org/${i}` }, { key })).body.id);
    }
    const first = await h.request('GET', '/links', { key });
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body).sort(), ['hasMore', 'links']);
    assert.equal(first.body.links.length, 50);
    assert.equal(first.body.hasMore, true);
    assert.deepEqual(
      first.body.links.map((l: { id: string }) => l.id),
      ids.slice().reverse().slice(0, 50),
    );
    const second = await h.request('GET', '/links?offset=50', { key });
    assert.equal(second.body.links.length, 5);
    assert.equal(second.body.hasMore, false);
    assert.deepEqual(
      second.body.links.map((l: { id: string }) => l.id),
      ids.slice(0, 5).reverse(),
    );
    const beyond = await h.request('GET', '/links?offset=100000', { key });
    assert.deepEqual(beyond.body, { links: [], hasMore: false });
  });

  test('a page of exactly 50 says hasMore false', async () => {
    const { key } = await h.account();
    for (let i = 0; i < 50; i++) await h.createLink({ target: `https://example.org/${i}` }, { key });
    const page = await h.request('GET', '/links', { key });
    assert.deepEqual([page.body.links.length, page.body.hasMore], [50, false]);
  });

  test('an account lists only its own links, never trial links', async () => {
    const a = await h.account();
    const b = await h.account();
    await h.createLink({ target: 'https://example.org/a' }, { key: a.key });
    await h.createLink({ target: 'https://example.org/trial' });
    const list = await h.request('GET', '/links', { key: b.key });
    assert.deepEqual(list.body, { links: [], hasMore: false });
    const own = await h.request('GET', '/links', { key: a.key });
    assert.deepEqual(
      own.body.links.map((l: { target: string }) => l.target),
      ['https://example.org/a'],
    );
  });

  test('search matches slug, target, title and tags case-insensitively', async () => {
    const { key } = await h.account();
    const bySlug = await h.createLink({ target: 'https://example.org/1', alias: `Spring-Poster-${Date.now()}` }, { key });
    const byTarget = await h.createLink({ target: 'https://example.org/SPRING-sale' }, { key });
    const byTitle = await h.createLink({ target: 'https://example.org/3', title: 'The spring campaign' }, { key });
    const byTags = await h.createLink({ target: 'https://example.org/4', tags: 'print,Spring' }, { key });
    await h.createLink({ target: 'https://example.org/5', title: 'autumn' }, { key });
    const res = await h.request('GET', `/links?search=${encodeURIComponent('sPrInG')}`, { key });
    assert.equal(res.status, 200);
    const found = res.body.links.map((l: { id: string }) => l.id).sort();
    assert.deepEqual(found, [bySlug.body.id, byTarget.body.id, byTitle.body.id, byTags.body.id].sort());
  });

  test('a search in the exact case of non-ASCII text finds it on both databases', async () => {
    const { key } = await h.account();
    const eclair = await h.createLink({ target: 'https://example.org/e', title: 'Éclair Über' }, { key });
    const res = await h.request('GET', `/links?search=${encodeURIComponent('Éclair Ü')}`, { key });
    assert.deepEqual(
      res.body.links.map((l: { id: string }) => l.id),
      [eclair.body.id],
    );
  });

  test('% and _ in a search are literal characters', async () => {
    const { key } = await h.account();
    const pct = await h.createLink({ target: 'https://example.org/x', title: '100% off' }, { key });
    await h.createLink({ target: 'https://example.org/y', title: '100 off' }, { key });
    const res = await h.request('GET', `/links?search=${encodeURIComponent('0%')}`, { key });
    assert.deepEqual(
      res.body.links.map((l: { id: string }) => l.id),
      [pct.body.id],
    );
    const under = await h.request('GET', `/links?search=${encodeURIComponent('0_o')}`, { key });
    assert.deepEqual(under.body.links, []);
  });

  test('query bounds: offset 0..100000 integers, search at most 100 characters, nothing else', async () => {
    const { key } = await h.account();
    for (const query of ['offset=-1', 'offset=100001', 'offset=1.5', 'offset=abc', `search=${'x'.repeat(101)}`, 'limit=10', 'page=2']) {
      const res = await h.request('GET', `/links?${query}`, { key });
      assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }], query);
    }
    assert.equal((await h.request('GET', `/links?search=${'x'.repeat(100)}&offset=0`, { key })).status, 200);
  });

  test('listing needs links:read', async () => {
    const { accountId } = await h.account();
    const writeOnly = await h.keyFor(accountId, 'links:write');
    const res = await h.request('GET', '/links', { key: writeOnly });
    assert.deepEqual([res.status, res.body], [403, { error: 'api_scope_required' }]);
    const none = await h.request('GET', '/links');
    assert.deepEqual([none.status, none.body], [401, { error: 'api_key_invalid' }]);
  });
});
