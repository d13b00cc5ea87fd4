import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request sent as written: the path untouched, headers repeated when given as a list, body bytes as they are. */
function raw(base: string, method: string, path: string, headers: http.OutgoingHttpHeaders | string[] = {}, body?: string | Buffer): Promise<Raw> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path, headers: headers as http.OutgoingHttpHeaders, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const invalidRequest = (res: Raw, what: string) =>
  assert.deepEqual([res.status, res.text, String(res.headers['content-type'])], [400, '{"error":"invalid_request"}', 'application/json; charset=utf-8'], what);

/** A JSON body whose title holds the bytes 0xff 0xfe, which are not UTF-8. */
const notUtf8 = (fields: string) => Buffer.concat([Buffer.from(`{${fields}"title":"a`), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')]);

eachDatabase('the HTTP edge reads input exactly or refuses it', (kind) => {
  let h: Harness;
  let key: string;
  let linkId: string;
  let slug: string;
  before(async () => {
    // A trusted proxy, so X-Forwarded-For is read; a large head limit, so the router sees long paths.
    h = await Harness.start(kind, { TRUST_PROXY: '1', MAX_HEADER_BYTES: '65536' });
    key = (await h.account()).key;
    const link = (await h.createLink({ target: 'https://example.org/edge', title: 'edge' }, { key })).body;
    linkId = link.id;
    slug = link.slug;
  });
  after(async () => h.close());

  const json = (method: string, path: string, body: string | Buffer, extra: Record<string, string> = {}) =>
    raw(
      h.baseUrl,
      method,
      `/api/v1${path}`,
      { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...extra },
      body,
    );

  test('a JSON body that is not UTF-8 is 400 invalid_request on every endpoint that reads one, and nothing is stored', async () => {
    const before = (await h.request('GET', '/links', { key })).body.links.length;
    invalidRequest(await json('POST', '/links', notUtf8('"target":"https://example.org/bytes",')), 'POST /links');
    const trial = await raw(
      h.baseUrl,
      'POST',
      '/api/v1/links',
      { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      notUtf8('"target":"https://example.org/t",'),
    );
    invalidRequest(trial, 'trial');
    invalidRequest(await json('PATCH', `/links/${linkId}`, notUtf8('"version":1,')), 'PATCH');
    invalidRequest(await json('POST', '/quotes', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])), 'POST /quotes');
    invalidRequest(await json('POST', `/links/${linkId}/qr`, Buffer.from([0x7b, 0x22, 0xc3, 0x22, 0x3a, 0x31, 0x7d])), 'QR, a cut two-byte sequence');
    assert.equal((await h.request('GET', '/links', { key })).body.links.length, before);
    const read = await h.request('GET', `/links/${linkId}`, { key });
    assert.deepEqual([read.body.title, read.body.version], ['edge', 1]);
  });

  test('an escaped unpaired surrogate is 400 invalid_request; every other character is stored exactly as sent', async () => {
    for (const title of ['\\ud800', 'a\\udfffb', '\\ude00\\ud83d']) {
      invalidRequest(await json('POST', '/links', `{"target":"https://example.org/","title":"${title}"}`), title);
    }
    invalidRequest(await json('POST', '/links', '{"target":"https://example.org/","\\ud800":1}'), 'in a key');
    const escaped = await json('POST', '/links', '{"target":"https://example.org/","title":"\\ud83d\\ude00 \\u00e9"}');
    const literal = await json('POST', '/links', Buffer.from('{"target":"https://example.org/","title":"😀 é 日本 \u{10FFFF}"}'));
    for (const [res, title] of [
      [escaped, '😀 é'],
      [literal, '😀 é 日本 \u{10FFFF}'],
    ] as const) {
      assert.equal(res.status, 200, res.text);
      assert.equal((await h.request('GET', `/links/${JSON.parse(res.text).id}`, { key })).body.title, title);
    }
  });

  test('a link id in upper case or as a urn:uuid names the same link on read, edit, stats and QR', async () => {
    const upper = linkId.toUpperCase();
    const read = await h.request('GET', `/links/${upper}`, { key });
    assert.deepEqual([read.status, read.body.id], [200, linkId]);
    assert.equal((await h.request('GET', `/links/urn:uuid:${linkId}`, { key })).body.id, linkId);
    assert.equal((await h.request('GET', `/links/URN:UUID:${upper}`, { key })).body.id, linkId);
    const current = read.body.version;
    const patched = await h.request('PATCH', `/links/${upper}`, { key, body: { version: current, title: 'renamed' } });
    assert.deepEqual([patched.status, patched.body.id, patched.body.version], [200, linkId, current + 1]);
    assert.equal((await h.request('GET', `/links/${upper}/stats`, { key })).status, 200);
    assert.equal((await h.request('POST', `/links/${upper}/qr`, { key, body: {} })).status, 200);
  });

  test('a malformed percent-encoding in a query string is 400 invalid_request, not literal text', async () => {
    for (const query of ['search=%ff', 'search=%zz', 'search=a%e2%82', 'search=%', 's%ffearch=a']) {
      invalidRequest(await raw(h.baseUrl, 'GET', `/api/v1/links?${query}`, { authorization: `Bearer ${key}` }), query);
    }
    invalidRequest(await raw(h.baseUrl, 'GET', `/api/v1/links/${linkId}/stats?format=%ff`, { authorization: `Bearer ${key}` }), 'stats');
    const found = await h.request('GET', '/links?search=%65dge+', { key });
    assert.equal(found.status, 200, 'a well-formed encoding and + are read as before');
    const searched = await h.request('GET', `/links?search=${encodeURIComponent('é')}`, { key });
    assert.equal(searched.status, 200);
  });

  test('a valid trial token on an endpoint that takes none is 403 api_scope_required; a malformed or unknown one is 401', async () => {
    const trial = (await h.createLink({ target: 'https://example.org/trial' })).body;
    const token = { 'x-service-trial-token': trial.trialToken };
    const cases: [string, string, unknown?][] = [
      ['PATCH', `/links/${trial.id}`, { version: 1, target: 'https://evil.example/' }],
      ['GET', '/links'],
      ['GET', '/account/usage'],
      ['POST', '/quotes', { action: 'link.create' }],
      ['POST', '/links/capacity', { maxCredits: 50 }],
    ];
    for (const [method, path, body] of cases) {
      const headers = { ...token, 'idempotency-key': crypto.randomUUID() };
      const res = await h.request(method, path, { headers, ...(body === undefined ? {} : { body }) });
      assert.deepEqual([res.status, res.body], [403, { error: 'api_scope_required' }], `${method} ${path}`);
      const unknown = await h.request(method, path, {
        headers: { ...headers, 'x-service-trial-token': `shl_trial_${crypto.randomBytes(32).toString('base64url')}` },
        ...(body === undefined ? {} : { body }),
      });
      assert.deepEqual([unknown.status, unknown.body], [401, { error: 'api_key_invalid' }], `${method} ${path}, unknown token`);
    }
    const read = await h.request('GET', `/links/${trial.id}`, { headers: token });
    assert.deepEqual([read.status, read.body.target, read.body.version], [200, 'https://example.org/trial', 1]);
  });

  test('two X-Forwarded-For lines behind a trusted proxy are 400 invalid_request on the API and on a short link; one list is read as always', async () => {
    const two = { 'x-forwarded-for': ['198.51.100.7', '203.0.113.9'] };
    invalidRequest(await raw(h.baseUrl, 'GET', '/api/v1/trial', two), 'API');
    invalidRequest(await raw(h.baseUrl, 'GET', `/s/${slug}`, two), 'redirect');
    invalidRequest(await raw(h.baseUrl, 'GET', `/q/${slug}`, ['X-Forwarded-For', '198.51.100.7', 'x-forwarded-for', '203.0.113.9']), 'two spellings');
    const list = await raw(h.baseUrl, 'GET', `/s/${slug}`, { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' });
    assert.equal(list.status, 302);
    assert.equal((await raw(h.baseUrl, 'GET', '/api/v1/trial', { 'x-forwarded-for': '203.0.113.9' })).status, 200);
  });

  test('a short link the router cannot read gets the HTML not-found page, not JSON', async () => {
    const paths = ['/s/%ff%fe', '/q/%zz', '/s/%e2%82', `/s/${'a'.repeat(20_000)}`, `/q/%41${'b'.repeat(20_000)}`, '/s/%'];
    for (const path of paths) {
      for (const method of ['GET', 'HEAD']) {
        const res = await raw(h.baseUrl, method, path);
        assert.equal(res.status, 404, `${method} ${path.slice(0, 12)}`);
        assert.match(String(res.headers['content-type']), /^text\/html/, `${method} ${path.slice(0, 12)}`);
        if (method === 'GET') assert.match(res.text, /Link not found/);
      }
    }
    // Not a short link: the API still says what was wrong with the request.
    invalidRequest(await raw(h.baseUrl, 'GET', '/api/v1/links/%ff', { authorization: `Bearer ${key}` }), 'API path');
  });
});
