import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedirectResolver } from '../src/domain/redirects.js';
import { KyselyLinkStore } from '../src/store/link-store.js';
import { eachDatabase } from './helpers/databases.js';
import { Harness } from './helpers/harness.js';

eachDatabase('the redirect cache', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  const newLink = async (target = 'https://example.org/old') => (await h.createLink({ target }, { key: (await h.account()).key })).body;

  test('a lookup overtaken by an edit answers but does not cache the row it read', async () => {
    const link = await newLink();
    const resolver = new RedirectResolver(new KyselyLinkStore(h.database.db), h.clock.now, { ttlMs: 60_000, maxEntries: 10 });
    const pending = resolver.resolve(link.slug);
    resolver.invalidate(link.slug);
    assert.equal(((await pending) as { target: string }).target, 'https://example.org/old');
    assert.equal(resolver.peek(link.slug), undefined);
    await resolver.resolve(link.slug);
    assert.notEqual(resolver.peek(link.slug), undefined);
  });

  test('entries expire on the service clock after the TTL', async () => {
    const link = await newLink();
    const resolver = new RedirectResolver(new KyselyLinkStore(h.database.db), h.clock.now, { ttlMs: 5_000, maxEntries: 10 });
    await resolver.resolve(link.slug);
    h.clock.advance(4_999);
    assert.notEqual(resolver.peek(link.slug), undefined);
    h.clock.advance(2);
    assert.equal(resolver.peek(link.slug), undefined);
  });

  test('a TTL of 0 caches nothing: every lookup reads the database', async () => {
    const link = await newLink();
    const resolver = new RedirectResolver(new KyselyLinkStore(h.database.db), h.clock.now, { ttlMs: 0, maxEntries: 10 });
    await resolver.resolve(link.slug);
    assert.equal(resolver.peek(link.slug), undefined);
    await h.database.db.updateTable('links').set({ target: 'https://example.org/new' }).where('id', '=', link.id).execute();
    assert.equal(((await resolver.resolve(link.slug)) as { target: string }).target, 'https://example.org/new');
  });

  test('mangled short-link paths get the HTML not-found page, API paths the JSON error', async () => {
    const link = await newLink();
    for (const path of [`/s/${link.slug}/`, `/q/${link.slug}/extra`, '/s/', '/q/a/b/c']) {
      const res = await h.request('GET', path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
      assert.match(res.text, /Link not found/);
    }
    const api = await h.request('GET', '/nothing-here');
    assert.deepEqual([api.status, api.body], [404, { error: 'not_found' }]);
  });
});
