import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('the links page’s tools: tags, sorting, alias suggestions, CSV export, compression', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { FREE_LINKS_PER_MONTH: '1000', RATE_LIMIT_PER_ACCOUNT: '1000', RATE_LIMIT_PER_IP: '1000' });
  });
  after(async () => h.close());

  test('tag keeps the links carrying that tag, ignoring case and spaces around commas', async () => {
    const { key } = await h.account();
    const poster = await h.createLink({ target: 'https://example.org/1', tags: 'Poster, spring' }, { key });
    const both = await h.createLink({ target: 'https://example.org/2', tags: 'print,poster' }, { key });
    await h.createLink({ target: 'https://example.org/3', tags: 'posters' }, { key });
    const res = await h.request('GET', '/links?tag=POSTER', { key });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.links.map((l: { id: string }) => l.id).sort(), [poster.body.id, both.body.id].sort());
    const sale = await h.createLink({ target: 'https://example.org/4', tags: 'print ,  Spring   Sale' }, { key });
    const folded = await h.request('GET', `/links?tag=${encodeURIComponent(' spring sale ')}`, { key });
    assert.deepEqual(
      folded.body.links.map((l: { id: string }) => l.id),
      [sale.body.id],
      'runs of spaces fold, as a tag’s stats match them',
    );
    await h.database.db.deleteFrom('links').where('id', '=', sale.body.id).execute();
    const tags = await h.request('GET', '/tags', { key });
    assert.deepEqual(tags.body, { tags: [{ tag: 'Poster' }, { tag: 'posters' }, { tag: 'print' }, { tag: 'spring' }] });
  });

  test('sort orders by most visits or by title (untitled last); a bad sort is 400', async () => {
    const { key } = await h.account();
    const b = await h.createLink({ target: 'https://example.org/b', title: 'banana' }, { key });
    h.clock.advance(1);
    const none = await h.createLink({ target: 'https://example.org/n' }, { key });
    h.clock.advance(1);
    const a = await h.createLink({ target: 'https://example.org/a', title: 'Apple' }, { key });
    await h.database.db.updateTable('links').set({ visits: 7 }).where('id', '=', b.body.id).execute();
    await h.database.db.updateTable('links').set({ visits: 3 }).where('id', '=', none.body.id).execute();
    const ids = async (sort: string) => (await h.request('GET', `/links?sort=${sort}`, { key })).body.links.map((l: { id: string }) => l.id);
    assert.deepEqual(await ids('visits'), [b.body.id, none.body.id, a.body.id]);
    assert.deepEqual(await ids('title'), [a.body.id, b.body.id, none.body.id]);
    assert.deepEqual(await ids('newest'), [a.body.id, none.body.id, b.body.id]);
    assert.equal((await h.request('GET', '/links?sort=oldest', { key })).status, 400);
  });

  test('a taken alias is answered with a free one like it', async () => {
    const { key } = await h.account();
    const alias = `menu-${Date.now()}`;
    assert.deepEqual((await h.request('GET', `/aliases/${alias}`, { key })).body, { alias, available: true });
    await h.createLink({ target: 'https://example.org/m', alias }, { key });
    await h.createLink({ target: 'https://example.org/m2', alias: `${alias}-2` }, { key });
    const taken = await h.request('GET', `/aliases/${alias}`, { key });
    assert.deepEqual(taken.body, { alias, available: false, suggestion: `${alias}-3` });
    const made = await h.createLink({ target: 'https://example.org/m3', alias: taken.body.suggestion }, { key });
    assert.equal(made.status, 200);
    assert.equal((await h.request('GET', '/aliases/no%20spaces', { key })).status, 400);
  });

  test('many aliases are checked in one request, in the order asked, whoever took them; nothing is made', async () => {
    const { key, accountId } = await h.account();
    const other = await h.account();
    const stamp = Date.now();
    await h.createLink({ target: 'https://example.org/mine', alias: `mine-${stamp}` }, { key });
    await h.createLink({ target: 'https://example.org/theirs', alias: `theirs-${stamp}` }, { key: other.key });
    const asked = [`theirs-${stamp}`, `free-${stamp}`, `mine-${stamp}`, `Mine-${stamp}`, `free-${stamp}`];
    const res = await h.request('POST', '/aliases/check', { key, body: { aliases: asked } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.aliases,
      asked.map((alias) => ({ alias, available: alias.startsWith('free') || alias.startsWith('Mine') })),
      'case matters, as aliases are case-sensitive',
    );
    assert.equal(await h.linkCount(accountId), 1);
    const most = Array.from({ length: 500 }, (_, i) => `bulk-${i}`);
    assert.equal((await h.request('POST', '/aliases/check', { key, body: { aliases: most } })).status, 200);
    for (const body of [{ aliases: [...most, 'one-more'] }, { aliases: [] }, { aliases: ['no spaces'] }, {}]) {
      assert.equal((await h.request('POST', '/aliases/check', { key, body })).status, 400, JSON.stringify(body).slice(0, 40));
    }
    const reader = await h.keyFor(accountId, 'links:read');
    assert.equal((await h.request('POST', '/aliases/check', { key: reader, body: { aliases: ['x'] } })).status, 403);
  });

  test('the CSV export holds every link, newest first, with formulas neutralised', async () => {
    const { key } = await h.account();
    for (let i = 0; i < 55; i++) {
      h.clock.advance(1);
      await h.createLink({ target: `https://example.org/${i}`, title: i === 54 ? '=SUM(A1)' : `Poster ${i}` }, { key });
    }
    const res = await h.request('GET', '/links/export', { key });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="links.csv"');
    const lines = res.text.trim().split('\r\n');
    assert.equal(lines[0], 'title,slug,short_url,qr_url,destination,tags,status,visits,created');
    assert.equal(lines.length, 56);
    assert.match(lines[1]!, /^'=SUM\(A1\),/);
  });

  test('JSON answers are compressed when the client accepts it, in one piece with their length; small ones and redirects are not', async () => {
    const { key } = await h.account();
    for (let i = 0; i < 40; i++) await h.createLink({ target: `https://example.org/compress/${i}`, title: `A title long enough ${i}` }, { key });
    const raw = await fetch(`${h.baseUrl}/api/v1/links`, { headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' } });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get('content-encoding'), 'gzip');
    // Some 15 KB of JSON, compressed in one call (compression.ts): a length, not a chunked stream.
    assert.ok(Number(raw.headers.get('content-length')) > 1000, `content-length ${raw.headers.get('content-length')}`);
    assert.equal(raw.headers.get('transfer-encoding'), null);
    const links = (await raw.json()).links;
    assert.equal(links.length, 40);
    assert.ok(JSON.stringify(links).length > 8192, 'the answer is past the compression plugin’s own limit for one call on two cores');
    const link = (await h.request('GET', '/links', { key })).body.links[0];
    const redirect = await fetch(`${h.baseUrl}/s/${link.slug}`, { redirect: 'manual', headers: { 'accept-encoding': 'gzip, br' } });
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get('content-encoding'), null);
    const small = await fetch(`${h.baseUrl}/api/v1/links/${link.id}`, { headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' } });
    assert.equal(small.headers.get('content-encoding'), null);
  });
});
