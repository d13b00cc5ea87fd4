import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('link previews', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  const visits = async (id: string) => Number((await h.database.db.selectFrom('links').select('visits').where('id', '=', id).executeTakeFirstOrThrow()).visits);

  test('/s/<slug>+ and /q/<slug>+ show the destination, the title and the age without redirecting or counting a visit', async () => {
    const { key } = await h.account();
    const link = (await h.createLink({ target: 'https://example.org/menu?a=1&b=2', title: 'Café <menu> "today"' }, { key })).body;
    h.clock.advance(3 * 86_400_000);
    for (const source of ['s', 'q']) {
      for (const method of ['GET', 'HEAD']) {
        const res = await h.request(method, `/${source}/${link.slug}+`);
        assert.equal(res.status, 200, `${method} ${source}`);
        assert.equal(res.headers.get('location'), null);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        assert.equal(res.headers.get('cache-control'), 'private, no-store');
        if (method === 'HEAD') continue;
        assert.match(res.text, /https:\/\/example\.org\/menu\?a=1&amp;b=2/, 'the destination, as text, escaped');
        assert.match(res.text, /Café &lt;menu&gt; &quot;today&quot;/);
        assert.match(res.text, /3 days ago/);
        assert.match(res.text, new RegExp(`href="/report\\?url=${encodeURIComponent(`http://sho.rt/${source}/${link.slug}`)}"[^>]*>Report this link<`));
      }
    }
    await h.app.visitRecorder.flush();
    assert.equal(await visits(link.id), 0, 'no visit counted');
    assert.equal((await h.request('GET', `/s/${link.slug}`)).status, 302);
    await h.app.visitRecorder.flush();
    assert.equal(await visits(link.id), 1, 'the redirect itself is counted');
  });

  test('a paused or suspended link’s preview says so, a suspended destination is not a link to follow, and an unknown slug is 404 with a report link', async () => {
    const { key } = await h.account();
    const link = (await h.createLink({ target: 'https://example.org/phish' }, { key })).body;
    await h.request('PATCH', `/links/${link.id}`, { key, body: { version: link.version, status: 'paused' } });
    assert.match((await h.request('GET', `/s/${link.slug}+`)).text, /paused/);
    await h.cli('links suspend', { id: link.id });
    const suspended = await h.request('GET', `/s/${link.slug}+`);
    assert.match(suspended.text, /disabled/);
    assert.doesNotMatch(suspended.text, /href="https:\/\/example\.org\/phish"/);
    const missing = await h.request('GET', '/s/no-such-link+');
    assert.equal(missing.status, 404);
    assert.match(missing.text, /Report this link/);
  });
});
