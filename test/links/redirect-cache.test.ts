import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RedirectResolver } from '../../src/links/redirects.js';
import { KyselyLinkStore } from '../../src/links/link-store.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

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
    assert.equal(resolver.peek(link.slug, h.clock.now()), undefined);
    await resolver.resolve(link.slug);
    assert.notEqual(resolver.peek(link.slug, h.clock.now()), undefined);
  });

  test("another writer's change reaches the cache at the next feed sync, at most one TTL later; unchanged entries stay", async () => {
    const { key, accountId } = await h.account();
    const a = (await h.createLink({ target: 'https://example.org/a1' }, { key })).body;
    const b = (await h.createLink({ target: 'https://example.org/b1' }, { key })).body;
    const store = new KyselyLinkStore(h.database.db);
    const resolver = new RedirectResolver(store, h.clock.now, { ttlMs: 5_000, maxEntries: 10 });
    await resolver.resolve(a.slug);
    await resolver.resolve(b.slug);
    // Another instance edits a: its transaction writes the change feed, this resolver is not told.
    await store.update(a.id, accountId, 1, { target: 'https://example.org/a2' }, h.clock.now());
    h.clock.advance(4_999);
    assert.equal((resolver.peek(a.slug, h.clock.now()) as { target: string }).target, 'https://example.org/a1');
    h.clock.advance(1);
    assert.equal(resolver.peek(a.slug, h.clock.now()), undefined, 'a sync is due: the fast path defers to it');
    assert.equal(((await resolver.resolve(b.slug)) as { target: string }).target, 'https://example.org/b1');
    assert.equal(resolver.peek(a.slug, h.clock.now()), undefined, 'the changed slug was evicted');
    assert.equal((resolver.peek(b.slug, h.clock.now()) as { target: string }).target, 'https://example.org/b1', 'an unchanged slug stays cached');
    assert.equal(((await resolver.resolve(a.slug)) as { target: string }).target, 'https://example.org/a2');
  });

  test('a change in the feed evicts its slug once, not at every read of the minute it stays in the feed', async () => {
    const { key } = await h.account();
    const link = (await h.createLink({ target: 'https://example.org/new' }, { key })).body;
    const resolver = new RedirectResolver(new KyselyLinkStore(h.database.db), h.clock.now, { ttlMs: 5_000, maxEntries: 10 });
    await resolver.resolve(link.slug);
    // The first read finds the creation and evicts the slug (this resolver cannot tell it read the link after it).
    h.clock.advance(5_000);
    await resolver.resolve(link.slug);
    assert.equal(resolver.counts.misses, 2);
    // Later reads within the minute find the same row and leave the entry alone: it answers from memory.
    for (let read = 0; read < 5; read++) {
      h.clock.advance(5_000);
      await resolver.sync();
      assert.equal((resolver.peek(link.slug, h.clock.now()) as { target: string }).target, 'https://example.org/new', `after read ${read + 2}`);
    }
    assert.equal(resolver.counts.misses, 2);
  });

  test('a sync that finds an empty cache does not stop later syncs: a change after it is seen one TTL later, and hits are answered synchronously', async () => {
    const { key, accountId } = await h.account();
    const link = (await h.createLink({ target: 'https://example.org/empty-1' }, { key })).body;
    const store = new KyselyLinkStore(h.database.db);
    const resolver = new RedirectResolver(store, h.clock.now, { ttlMs: 5_000, maxEntries: 10 });
    // The first sync finds nothing cached.
    h.clock.advance(5_000);
    assert.equal(resolver.size, 0);
    await resolver.sync();
    assert.equal(((await resolver.resolve(link.slug)) as { target: string }).target, 'https://example.org/empty-1');
    assert.equal((resolver.peek(link.slug, h.clock.now()) as { target: string }).target, 'https://example.org/empty-1', 'a hit is answered synchronously');
    await store.update(link.id, accountId, 1, { target: 'https://example.org/empty-2' }, h.clock.now());
    h.clock.advance(5_000);
    assert.equal(resolver.peek(link.slug, h.clock.now()), undefined, 'a sync is due');
    await resolver.sync();
    assert.equal(resolver.peek(link.slug, h.clock.now()), undefined, 'the sync evicted the changed slug');
    assert.equal(((await resolver.resolve(link.slug)) as { target: string }).target, 'https://example.org/empty-2');
    assert.equal((resolver.peek(link.slug, h.clock.now()) as { target: string }).target, 'https://example.org/empty-2');
    assert.deepEqual([resolver.counts.misses, resolver.counts.hits], [2, 2]);
  });

  test('the first redirect after a TTL without requests is cached, and a suspension by the CLI reaches the redirect one TTL later', async () => {
    const link = await newLink('https://example.org/first-after-ttl');
    h.clock.advance(60_000);
    const first = await h.request('GET', `/s/${link.slug}`);
    assert.deepEqual([first.status, first.headers.get('location')], [302, 'https://example.org/first-after-ttl']);
    // The CLI's own process, in-process here: it writes the feed and tells the server nothing.
    assert.equal((await h.cli('links suspend', { id: link.id })).status, 'suspended');
    // Within the TTL the answer may still come from memory (the background read of the feed, or on
    // PostgreSQL the change notice, may already have evicted it); one TTL later it cannot.
    h.clock.advance(h.config.redirectCacheTtlMs);
    const after = await h.request('GET', `/s/${link.slug}`);
    assert.equal(after.status, 404);
    assert.match(after.text, /disabled/);
    const qr = await h.request('GET', `/q/${link.slug}`);
    assert.equal(qr.status, 404);
  });

  test('a paused link answers a page that says it is paused, and resuming it redirects again at once', async () => {
    const { key } = await h.account();
    const link = (await h.createLink({ target: 'https://example.org/pausable' }, { key })).body;
    assert.equal((await h.request('GET', `/s/${link.slug}`)).status, 302);
    const paused = await h.request('PATCH', `/links/${link.id}`, { key, body: { version: link.version, status: 'paused' } });
    const page = await h.request('GET', `/s/${link.slug}`);
    assert.equal(page.status, 404);
    assert.match(page.text, /paused/);
    await h.request('PATCH', `/links/${link.id}`, { key, body: { version: paused.body.version, status: 'active' } });
    assert.equal((await h.request('GET', `/s/${link.slug}`)).status, 302);
  });

  test('a redirect that misses the cache is answered while an analytics transaction holds the writing connection', { timeout: 20_000 }, async () => {
    const link = await newLink('https://example.org/during-a-roll-up');
    h.clock.advance(10 * 60_000);
    // A transaction that stays open until the redirect has been answered, as a roll-up pass stays open
    // across its yields. On SQLite the writing connection runs one transaction at a time: a lookup
    // queued behind it would never finish, and this test would time out.
    await h.database.db.transaction().execute(async (tx) => {
      await tx.selectFrom('links').select('id').where('id', '=', link.id).execute();
      const res = await h.request('GET', `/s/${link.slug}`);
      assert.equal(res.status, 302);
      assert.equal(res.headers.get('location'), 'https://example.org/during-a-roll-up');
    });
  });

  test('a slug created elsewhere replaces a cached "no such slug" at the next sync', async () => {
    const { key } = await h.account();
    const alias = `later-${kind}-${h.clock.now()}`;
    const resolver = new RedirectResolver(new KyselyLinkStore(h.database.db), h.clock.now, { ttlMs: 5_000, maxEntries: 10 });
    assert.deepEqual(await resolver.resolve(alias), { kind: 'missing' });
    assert.equal((await h.createLink({ target: 'https://example.org/late', alias }, { key })).status, 200);
    assert.deepEqual(resolver.peek(alias, h.clock.now()), { kind: 'missing' });
    h.clock.advance(5_000);
    assert.equal(((await resolver.resolve(alias)) as { target: string }).target, 'https://example.org/late');
  });

  test('without a change in the feed, a cached link is still re-read 10 to 15 minutes after it was read, spread at random (the safety net)', async () => {
    const early = await newLink('https://example.org/early-before');
    const late = await newLink('https://example.org/late-before');
    // The links' creation is in the feed: let it fall out of the resolver's look-back first.
    h.clock.advance(2 * 60_000);
    const draws = [0, 0.999];
    const resolver = new RedirectResolver(new KyselyLinkStore(h.database.db), h.clock.now, { ttlMs: 5_000, maxEntries: 10, random: () => draws.shift()! });
    const target = async (slug: string) => ((await resolver.resolve(slug)) as { target: string }).target;
    await resolver.resolve(early.slug);
    await resolver.resolve(late.slug);
    // Changed behind the feed's back (no link_changes row): only the safety net can see it.
    for (const link of [early, late]) {
      await h.database.db
        .updateTable('links')
        .set({ target: link.target.replace('before', 'after') })
        .where('id', '=', link.id)
        .execute();
    }
    h.clock.advance(9 * 60_000);
    assert.deepEqual([await target(early.slug), await target(late.slug)], ['https://example.org/early-before', 'https://example.org/late-before']);
    assert.equal((resolver.peek(early.slug, h.clock.now()) as { target: string }).target, 'https://example.org/early-before');
    h.clock.advance(90_000);
    assert.equal(resolver.peek(early.slug, h.clock.now()), undefined, 'due: the fast path defers to the database');
    assert.deepEqual([await target(early.slug), await target(late.slug)], ['https://example.org/early-after', 'https://example.org/late-before']);
    h.clock.advance(5 * 60_000);
    assert.equal(await target(late.slug), 'https://example.org/late-after');
  });

  test('a TTL of 0 caches nothing: every lookup reads the database', async () => {
    const link = await newLink();
    const resolver = new RedirectResolver(new KyselyLinkStore(h.database.db), h.clock.now, { ttlMs: 0, maxEntries: 10 });
    await resolver.resolve(link.slug);
    assert.equal(resolver.peek(link.slug, h.clock.now()), undefined);
    await h.database.db.updateTable('links').set({ target: 'https://example.org/new' }).where('id', '=', link.id).execute();
    assert.equal(((await resolver.resolve(link.slug)) as { target: string }).target, 'https://example.org/new');
  });

  test('a link created on this instance replaces its cached "no such slug" at once', async () => {
    const { key } = await h.account();
    const alias = `fresh-${kind}-${h.clock.now()}`;
    assert.equal((await h.request('GET', `/s/${alias}`)).status, 404);
    assert.equal((await h.createLink({ target: 'https://example.org/fresh', alias }, { key })).status, 200);
    const res = await h.request('GET', `/s/${alias}`);
    assert.deepEqual([res.status, res.headers.get('location')], [302, 'https://example.org/fresh']);
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
