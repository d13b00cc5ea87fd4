import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ERROR_STATUS } from '../../src/platform/errors.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request sent exactly as written: no normalisation of the path, any headers and body bytes. */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Raw> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path, headers, agent: false }, (res) => {
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

/** Bytes straight onto a socket, for HTTP that is not even well-formed. */
function rawSocket(base: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

/** The wire form of every error: exactly {"error": value} with the catalog's status and a JSON type. */
function assertError(res: Raw, status: number, error: string, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.status} ${res.text.slice(0, 120)}`);
  assert.match(String(res.headers['content-type']), /^application\/json/, `${what}: content type`);
  assert.equal(res.text, JSON.stringify({ error }), `${what}: body`);
  assert.equal(ERROR_STATUS[error as keyof typeof ERROR_STATUS], status, `${what}: the catalog's status`);
}

const LINK = { target: 'https://example.org/errors' };

describe('malformed requests (sqlite)', () => {
  let h: Harness;
  let key: string;
  let linkId: string;
  before(async () => {
    h = await Harness.start('sqlite');
    key = (await h.account()).key;
    linkId = (await h.createLink(LINK, { key })).body.id;
  });
  after(async () => h.close());

  const post = (contentType: string | undefined, body?: string | Buffer, path = '/api/v1/links', method = 'POST') =>
    raw(
      h.baseUrl,
      method,
      path,
      {
        authorization: `Bearer ${key}`,
        'idempotency-key': crypto.randomUUID(),
        ...(contentType ? { 'content-type': contentType } : {}),
      },
      body,
    );

  test('malformed JSON is 400 invalid_request', async () => {
    for (const body of ['{', '{"target": "https://example.org/",}', "{'target': 'x'}", 'nul', '{"target": "https://example.org/"}}', '\u0000']) {
      assertError(await post('application/json', body), 400, 'invalid_request', JSON.stringify(body));
    }
    assertError(await post('application/json', '{', `/api/v1/links/${linkId}`, 'PATCH'), 400, 'invalid_request', 'PATCH');
  });

  test('a JSON body that is not an object is 400 invalid_request', async () => {
    for (const body of ['null', '[]', '"https://example.org/"', '42', 'true']) {
      assertError(await post('application/json', body), 400, 'invalid_request', body);
    }
  });

  test('a wrong or missing content type is 400 invalid_request, even with a valid JSON body', async () => {
    const json = JSON.stringify(LINK);
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/vnd.api+json',
      undefined,
    ]) {
      assertError(await post(type, json), 400, 'invalid_request', String(type));
    }
    assertError(await post('application/x-www-form-urlencoded', 'target=https%3A%2F%2Fexample.org%2F'), 400, 'invalid_request', 'form body');
    assertError(await post('text/plain', JSON.stringify({ version: 1 }), `/api/v1/links/${linkId}`, 'PATCH'), 400, 'invalid_request', 'PATCH text/plain');
    const ok = await post('application/json; charset=utf-8', json);
    assert.equal(ok.status, 200, 'a charset parameter is fine');
  });

  test('an empty body with application/json is 400 invalid_request', async () => {
    assertError(await post('application/json', ''), 400, 'invalid_request', 'POST empty');
    assertError(await post('application/json', undefined), 400, 'invalid_request', 'POST no body');
    assertError(await post('application/json', '', `/api/v1/links/${linkId}`, 'PATCH'), 400, 'invalid_request', 'PATCH empty');
  });

  test('a body over 1 MiB is 400 invalid_request with the error body', async () => {
    const count = async () => (await h.request('GET', '/links', { key })).body.links.length;
    const before = await count();
    const huge = JSON.stringify({ target: 'https://example.org/', title: 'x'.repeat(1024 * 1024) });
    assertError(await post('application/json', huge), 400, 'invalid_request', 'oversized');
    assert.equal(await count(), before, 'nothing was created');
  });

  test('__proto__ and constructor keys in a body are 400 invalid_request and pollute nothing', async () => {
    const bodies = [
      '{"target":"https://example.org/","__proto__":{"polluted":"yes"}}',
      '{"target":"https://example.org/","constructor":{"prototype":{"polluted":"yes"}}}',
      '{"__proto__":{"polluted":"yes"},"target":"https://example.org/"}',
    ];
    for (const body of bodies) assertError(await post('application/json', body), 400, 'invalid_request', body);
    assertError(
      await post('application/json', '{"version":1,"__proto__":{"polluted":"yes"}}', `/api/v1/links/${linkId}`, 'PATCH'),
      400,
      'invalid_request',
      'PATCH',
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
    const read = await h.request('GET', `/links/${linkId}`, { key });
    assert.equal(read.body.version, 1, 'the link was not edited');
  });

  test('unknown routes and methods are 404 not_found', async () => {
    const cases: [string, string][] = [
      ['GET', '/api/v1/nope'],
      ['GET', '/api/v2/links'],
      ['GET', '/nope'],
      ['GET', '/api/v1/links/x/y/z'],
      ['DELETE', `/api/v1/links/${linkId}`],
      ['PUT', `/api/v1/links/${linkId}`],
      ['DELETE', '/api/v1/links'],
      ['PUT', '/api/v1/trial'],
      ['POST', '/health'],
      ['POST', '/s/abcdefgh'],
      ['OPTIONS', '/api/v1/links'],
    ];
    for (const [method, path] of cases) {
      assertError(await raw(h.baseUrl, method, path, { authorization: `Bearer ${key}` }), 404, 'not_found', `${method} ${path}`);
    }
    // The route is decided before credentials: an unknown route is 404 even without a key.
    assertError(await raw(h.baseUrl, 'GET', '/api/v1/nope'), 404, 'not_found', 'no key');
  });

  test('a path id that is not a uuid is 400 invalid_request', async () => {
    for (const id of ['not-a-uuid', '123', `${linkId}x`, linkId.replace(/-/g, ''), '%E2%9C%93', "1'or'1'='1", 'x'.repeat(500)]) {
      assertError(await raw(h.baseUrl, 'GET', `/api/v1/links/${id}`, { authorization: `Bearer ${key}` }), 400, 'invalid_request', id.slice(0, 40));
    }
    assertError(await raw(h.baseUrl, 'GET', '/api/v1/links/%ZZ', { authorization: `Bearer ${key}` }), 400, 'invalid_request', 'bad escape');
    const patch = await raw(h.baseUrl, 'PATCH', '/api/v1/links/nope', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, '{"version":1}');
    assertError(patch, 400, 'invalid_request', 'PATCH');
  });

  test('query parameters of GET /links are checked: unknown names, offset bounds and type, search length', async () => {
    const bad = [
      '?foo=1',
      '?limit=10',
      '?offset=-1',
      '?offset=100001',
      '?offset=1.5',
      '?offset=abc',
      '?offset=',
      '?offset=%20',
      '?offset=1e3',
      '?offset=0x10',
      '?offset=1.0',
      '?offset=+5',
      '?offset=1&offset=2',
      `?search=${'x'.repeat(101)}`,
      `?search=${'é'.repeat(101)}`,
    ];
    for (const query of bad) {
      assertError(await raw(h.baseUrl, 'GET', `/api/v1/links${query}`, { authorization: `Bearer ${key}` }), 400, 'invalid_request', query.slice(0, 30));
    }
    for (const query of ['?offset=0', '?offset=100000', '?offset=007', `?search=${'x'.repeat(100)}`, '?offset=3&search=errors']) {
      assert.equal((await raw(h.baseUrl, 'GET', `/api/v1/links${query}`, { authorization: `Bearer ${key}` })).status, 200, query.slice(0, 30));
    }
  });

  test('HTTP that cannot be parsed is answered 400 with the error body', async () => {
    for (const bytes of [
      'GARBAGE\r\n\r\n',
      'GET /api/v1/trial HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      `GET /api/v1/trial HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]) {
      const text = await rawSocket(h.baseUrl, bytes);
      assert.match(text, /^HTTP\/1\.1 400 /, bytes.slice(0, 30));
      assert.match(text, /content-type: application\/json/i);
      assert.ok(text.endsWith('\r\n\r\n{"error":"invalid_request"}'), text.slice(-80));
    }
  });
});

eachDatabase('credentials and scopes', (kind) => {
  let h: Harness;
  let full: string;
  let linkId: string;
  before(async () => {
    h = await Harness.start(kind);
    full = (await h.account()).key;
    linkId = (await h.createLink(LINK, { key: full })).body.id;
  });
  after(async () => h.close());

  test('every malformed, unknown or foreign-shaped Authorization header is 401 api_key_invalid exactly', async () => {
    const unknown = `shl_live_${crypto.randomBytes(32).toString('base64url')}`;
    const variants = [
      full, // no scheme
      `Basic ${full}`,
      `Token ${full}`,
      `Bearer:${full}`,
      'Bearer',
      'Bearer ',
      '',
      `Bearer ${unknown}`,
      `Bearer ${full.replace('shl_live_', 'shl_test_')}`,
      `Bearer ${full.slice(0, -1)}`,
      `Bearer ${full}A`,
      `Bearer ${full} extra`,
      `Bearer ${full},Bearer ${full}`,
      `Bearer "${full}"`,
      `Bearer ${full.slice(0, 9)}${full.slice(9).toUpperCase() === full.slice(9) ? full.slice(9).toLowerCase() : full.slice(9).toUpperCase()}`,
    ];
    for (const authorization of variants) {
      for (const [method, path] of [
        ['GET', '/api/v1/links'],
        ['GET', `/api/v1/links/${linkId}`],
      ] as const) {
        assertError(await raw(h.baseUrl, method, path, { authorization }), 401, 'api_key_invalid', JSON.stringify(authorization.slice(0, 20)));
      }
    }
  });

  test('the Bearer scheme name is case-insensitive (RFC 9110 section 11.1), the key is not', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      assert.equal((await raw(h.baseUrl, 'GET', '/api/v1/links', { authorization: `${scheme} ${full}` })).status, 200, scheme);
    }
  });

  test('no credentials at all is 401 api_key_invalid on every endpoint that needs a key', async () => {
    assertError(await raw(h.baseUrl, 'GET', '/api/v1/links'), 401, 'api_key_invalid', 'GET /links');
    assertError(await raw(h.baseUrl, 'GET', `/api/v1/links/${linkId}`), 401, 'api_key_invalid', 'GET /links/{id}');
    const patch = await raw(h.baseUrl, 'PATCH', `/api/v1/links/${linkId}`, { 'content-type': 'application/json' }, '{"version":1,"title":"x"}');
    assertError(patch, 401, 'api_key_invalid', 'PATCH');
  });

  test('credentials are judged before the body: an invalid key with a malformed body is 401', async () => {
    const res = await raw(
      h.baseUrl,
      'POST',
      '/api/v1/links',
      { authorization: 'Bearer nope', 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      '{"target":1}',
    );
    assertError(res, 401, 'api_key_invalid', 'invalid key, invalid body');
  });

  test('a key without the scope an endpoint needs is 403 api_scope_required', async () => {
    const account = (await h.account('qr:read')).accountId;
    const readOnly = await h.keyFor(account, 'links:read');
    const writeOnly = await h.keyFor(account, 'links:write');
    const qrOnly = await h.keyFor(account, 'qr:read,analytics:read,credits:spend');
    const own = (await h.createLink(LINK, { key: writeOnly })).body.id;
    const cases: [string, string, string, string | undefined][] = [
      [readOnly, 'POST', '/api/v1/links', JSON.stringify(LINK)],
      [qrOnly, 'POST', '/api/v1/links', JSON.stringify(LINK)],
      [writeOnly, 'GET', '/api/v1/links', undefined],
      [writeOnly, 'GET', `/api/v1/links/${own}`, undefined],
      [qrOnly, 'GET', `/api/v1/links/${own}`, undefined],
      [readOnly, 'PATCH', `/api/v1/links/${own}`, '{"version":1,"title":"nope"}'],
    ];
    for (const [key, method, path, body] of cases) {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (body) Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() });
      assertError(await raw(h.baseUrl, method, path, headers, body), 403, 'api_scope_required', `${method} ${path}`);
    }
    const read = await h.request('GET', `/links/${own}`, { key: readOnly });
    assert.deepEqual([read.status, read.body.version, read.body.title], [200, 1, ''], 'the refused PATCH changed nothing');
  });
});

eachDatabase('text the databases cannot both hold', (kind) => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await Harness.start(kind);
    key = (await h.account()).key;
  });
  after(async () => h.close());

  const json = (method: string, path: string, body: unknown, auth = true) =>
    raw(
      h.baseUrl,
      method,
      path,
      { ...(auth ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      JSON.stringify(body),
    );

  test('a NUL character in title, tags, target or search is 400 invalid_request on both databases, never a storage error', async () => {
    for (const body of [
      { target: 'https://example.org/', title: 'a\u0000b' },
      { target: 'https://example.org/', tags: '\u0000' },
      { target: 'https://example.org/\u0000' },
    ]) {
      assertError(await json('POST', '/api/v1/links', body), 400, 'invalid_request', JSON.stringify(body));
    }
    assertError(await json('POST', '/api/v1/links', { target: 'https://example.org/', title: '\u0000' }, false), 400, 'invalid_request', 'trial');
    const link = await h.createLink(LINK, { key });
    assertError(await json('PATCH', `/api/v1/links/${link.body.id}`, { version: 1, title: 'x\u0000' }), 400, 'invalid_request', 'PATCH');
    assertError(await raw(h.baseUrl, 'GET', '/api/v1/links?search=%00', { authorization: `Bearer ${key}` }), 400, 'invalid_request', 'search');
    const read = await h.request('GET', `/links/${link.body.id}`, { key });
    assert.equal(read.body.version, 1);
    // The escaped form is ordinary text.
    const encoded = await h.createLink({ target: 'https://example.org/%00', title: '\\u0000' }, { key });
    assert.equal(encoded.status, 200, encoded.text);
  });
});
