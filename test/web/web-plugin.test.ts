import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { WEBSITE_DIR } from '../../src/web/web-plugin.js';
import { ensureWebsiteBuilt } from './browser.js';

const POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];

eachDatabase('the website over HTTP', (kind) => {
  let h: Harness;
  let get: (path: string) => Promise<Response>;
  before(async () => {
    ensureWebsiteBuilt();
    h = await Harness.start(kind);
    get = (p) => fetch(h.baseUrl + p, { redirect: 'manual' });
  });
  after(async () => h?.close());

  test('GET / serves the HTML shell with no-store, a strict Content-Security-Policy and no inline script', async () => {
    const res = await get('/');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const policy = res.headers.get('content-security-policy')!.split(/;\s*/);
    for (const directive of POLICY) assert.ok(policy.includes(directive), `CSP has ${directive}`);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    const html = await res.text();
    assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/, 'every script is a file');
    assert.doesNotMatch(html, /<style|\sstyle=/, 'no inline style');
    assert.doesNotMatch(html, /https?:\/\//, 'nothing from another origin');
  });

  test('every /app/ path, known to the app or not, gets the same shell', async () => {
    const shell = await (await get('/')).text();
    for (const p of ['/app', '/app/keys', '/app/billing', '/app/no/such/page?x=1']) {
      const res = await get(p);
      assert.equal(res.status, 200, p);
      assert.equal(await res.text(), shell, p);
    }
  });

  test('hashed assets are served with a year of immutable caching, compressed, and an unknown asset is 404', async () => {
    const html = await (await get('/')).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')));
    for (const asset of assets) {
      const res = await get(asset);
      assert.equal(res.status, 200, asset);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', asset);
      assert.equal(Buffer.from(await res.arrayBuffer()).length, fs.statSync(path.join(WEBSITE_DIR, asset)).size, asset);
    }
    const script = assets.find((a) => a.endsWith('.js'))!;
    const compressed = await fetch(h.baseUrl + script, { headers: { 'accept-encoding': 'br' } });
    assert.equal(compressed.headers.get('content-encoding'), 'br', 'compressed once at build, not per request');
    assert.equal((await get('/assets/no-such-file-abc123.js')).status, 404);
  });

  test('other unknown paths keep their answers: JSON 404 under /api/, the HTML not-found page for a short link', async () => {
    const api = await get('/api/v1/no-such-endpoint');
    assert.equal(api.status, 404);
    assert.deepEqual(await api.json(), { error: 'not_found' });
    const apiRoot = await get('/api/nothing');
    assert.equal(apiRoot.status, 404);
    assert.deepEqual(await apiRoot.json(), { error: 'not_found' });
    for (const p of ['/s/no-such-link', '/q/no-such-link']) {
      const res = await get(p);
      assert.equal(res.status, 404, p);
      assert.match(res.headers.get('content-type')!, /^text\/html/, p);
    }
  });

  test('the API reference is served from the package under its own policy, and the website adds no operation to the OpenAPI document', async () => {
    const page = await get('/api/reference');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy')!, /script-src 'self';/);
    assert.doesNotMatch(await page.text(), /https?:\/\//);
    const document = (await (await get('/api/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
    for (const p of Object.keys(document.paths)) assert.doesNotMatch(p, /^\/(app|assets|api\/reference)?(\/|$)/, p);
  });
});
