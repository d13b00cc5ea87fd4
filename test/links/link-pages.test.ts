import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { ICON_SVG } from '../../src/platform/http/pages.js';

eachDatabase('the pages of short links that do not redirect', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { PUBLIC_URL: 'https://sho.rt' });
  });
  after(async () => h.close());

  const reportHref = (shortUrl: string) => `href="/report?url=${encodeURIComponent(shortUrl)}">Report this link</a>`;

  test('a missing link answers 404 with a page that says so and offers to report it', async () => {
    const res = await h.request('GET', '/s/NoSuchLink1');
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.text, /<title>Link not found<\/title>/);
    assert.match(res.text, /There is no short link at this address/);
    assert.ok(res.text.includes(reportHref('https://sho.rt/s/NoSuchLink1')), res.text);
    const viaQr = await h.request('GET', '/q/NoSuchLink1');
    assert.ok(viaQr.text.includes(reportHref('https://sho.rt/q/NoSuchLink1')));
  });

  test('a paused link answers 404 “Link paused”, counts no visit, and says it may work again', async () => {
    const { key } = await h.account();
    const link = (await h.createLink({ target: 'https://example.org/p' }, { key })).body;
    await h.request('PATCH', `/links/${link.id}`, { key, body: { version: 1, status: 'paused' } });
    const res = await h.request('GET', `/s/${link.slug}`);
    assert.equal(res.status, 404);
    assert.match(res.text, /<title>Link paused<\/title>/);
    assert.match(res.text, /paused it for now/);
    assert.ok(res.text.includes(reportHref(`https://sho.rt/s/${link.slug}`)));
    const read = await h.request('GET', `/links/${link.id}`, { key });
    assert.equal(read.body.visits ?? 0, 0);
  });

  test('an expired trial link answers 410 “Link expired”, naming the 7 days', async () => {
    const trial = (await h.createLink({ target: 'https://example.org/t' })).body;
    h.clock.advance(8 * 86_400_000);
    const res = await h.request('GET', `/s/${trial.slug}`);
    assert.equal(res.status, 410);
    assert.match(res.text, /<title>Link expired<\/title>/);
    assert.match(res.text, /Trial links work for 7 days/);
    assert.ok(res.text.includes(reportHref(`https://sho.rt/s/${trial.slug}`)));
  });

  test('the pages carry the website’s icon inline, so a browser asks for no /favicon.ico', async () => {
    const icon = `<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,${encodeURIComponent(ICON_SVG)}">`;
    assert.equal(ICON_SVG, fs.readFileSync(new URL('../../web/favicon.svg', import.meta.url), 'utf8').trim());
    const { key } = await h.account();
    const link = (await h.createLink({ target: 'https://example.org/i' }, { key })).body;
    for (const path of ['/s/NoSuchLink2', `/s/${link.slug}+`, '/q/a/b']) {
      const res = await fetch(`${h.baseUrl}${path}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      assert.ok((await res.text()).includes(icon), path);
    }
  });

  test('a slug that is not slug-shaped is escaped in the report link', async () => {
    const res = await fetch(`${h.baseUrl}/s/a"b<c`, { redirect: 'manual' });
    const text = await res.text();
    assert.equal(res.status, 404);
    assert.ok(!text.includes('a"b<c'));
  });
});
