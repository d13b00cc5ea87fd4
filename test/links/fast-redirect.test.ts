import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { clientAddress } from '../../src/platform/http/client-address.js';
import { linkWithKey, stats } from '../helpers/analytics.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';

/**
 * /s/ and /q/ are answered before Fastify (src/links/fast-redirect.ts); the forms the fast path leaves
 * to the router take Fastify's routes to the same answer. These tests hold both to one behaviour.
 */

/** Writes `text` on a fresh connection and collects everything until the server closes it (or 2 s pass). */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const giveUp = setTimeout(() => socket.end(), 2000);
    socket.on('connect', () => socket.write(text, 'latin1'));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve(received);
    });
  });
}

const head = (method: string, path: string, extra = '') => `${method} ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
/** A slug with its first character percent-encoded: the fast path leaves it to the router, which decodes it. */
const encoded = (slug: string) => `%${slug.charCodeAt(0).toString(16).toUpperCase()}${slug.slice(1)}`;

eachDatabase('the redirect fast path and its Fastify fallback', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('a percent-encoded slug still redirects, through the router, with the same headers', async () => {
    const link = await linkWithKey(h);
    for (const method of ['GET', 'HEAD']) {
      const plain = await h.request(method, `/q/${link.slug}`);
      const viaRouter = await h.request(method, `/q/${encoded(link.slug)}`);
      assert.deepEqual([viaRouter.status, viaRouter.headers.get('location')], [302, 'https://example.org/landing'], method);
      assert.deepEqual(
        [...viaRouter.headers].filter(([name]) => name !== 'date'),
        [...plain.headers].filter(([name]) => name !== 'date'),
        method,
      );
    }
  });

  test('GET counts a visit on either path; HEAD on either path counts none', async () => {
    const link = await linkWithKey(h);
    for (const path of [`/s/${link.slug}`, `/q/${encoded(link.slug)}`]) {
      assert.equal((await h.request('HEAD', path)).status, 302, `HEAD ${path}`);
      assert.equal((await h.request('GET', path)).status, 302, `GET ${path}`);
    }
    const { date, total, s, q } = (await stats(h, link.id, link.key)).daily.at(-1);
    assert.deepEqual({ date, total, s, q }, { date: '2026-11-15', total: 2, s: 1, q: 1 });
  });

  test('a redirect frames its empty body, so HTTP/1.1 and HTTP/1.0 keep-alive connections carry the next request', async () => {
    const link = await linkWithKey(h);
    const port = Number(new URL(h.baseUrl).port);
    const request = (version: string, connection: string) => `GET /s/${link.slug} HTTP/${version}\r\nHost: x\r\nConnection: ${connection}\r\n\r\n`;
    for (const version of ['1.1', '1.0']) {
      // Pipelined: the second request is answered only if the first response's end was known.
      const received = await exchange(port, request(version, 'keep-alive') + request(version, 'close'));
      const responses = received.split(/(?=HTTP\/1\.\d 302 )/);
      assert.equal(responses.length, 2, `HTTP/${version}: ${received}`);
      for (const response of responses) assert.match(response, /\r\n(transfer-encoding: chunked|content-length: 0)\r\n/i, `HTTP/${version}: ${response}`);
      assert.match(responses[0]!, /\r\nConnection: keep-alive\r\n/, `HTTP/${version}`);
    }
  });

  test('a stored target that node would refuse in a header is never written into one: 503, no forged header', async () => {
    const link = await linkWithKey(h);
    const port = Number(new URL(h.baseUrl).port);
    // Not through the API, which refuses it: a row as a bug or another writer might leave it.
    await sql`update links set target = ${'https://example.org/\r\nSet-Cookie: forged=1'} where id = ${link.id}`.execute(h.database.db);
    for (const path of [`/s/${link.slug}`, `/q/${encoded(link.slug)}`]) {
      const received = await exchange(port, head('GET', path) + head('GET', path, 'Connection: close\r\n'));
      const responses = received.split(/(?=HTTP\/1\.1 )/);
      assert.equal(responses.length, 2, received);
      for (const response of responses) {
        assert.match(response, /^HTTP\/1\.1 503 /, path);
        assert.doesNotMatch(response, /forged/i, path);
      }
    }
  });

  test('a query string or fragment is not part of the slug, even one holding slashes or percent signs', async () => {
    const link = await linkWithKey(h);
    const port = Number(new URL(h.baseUrl).port);
    for (const suffix of ['?utm_source=poster', '?next=/s/other%2F', '#top', '?']) {
      const response = await exchange(port, head('GET', `/s/${link.slug}${suffix}`, 'Connection: close\r\n'));
      assert.match(response, /^HTTP\/1\.1 302 /, suffix);
      assert.match(response, /\r\nlocation: https:\/\/example\.org\/landing\r\n/, suffix);
    }
  });

  test('a database failure on a cache miss is 503 links_unavailable with Retry-After, and the server keeps serving', async () => {
    const cached = await linkWithKey(h);
    const missed = await linkWithKey(h);
    assert.equal((await h.request('GET', `/s/${cached.slug}`)).status, 302, 'now in the cache');
    // A real failure, not a mock: the table the resolver reads is renamed away for a while.
    await sql`alter table links rename to links_away`.execute(h.database.db);
    try {
      for (const path of [`/s/${missed.slug}`, `/q/${encoded(missed.slug)}`]) {
        const res = await h.request('GET', path);
        assert.equal(res.status, 503, path);
        assert.equal(res.text, '{"error":"links_unavailable"}', path);
        assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8', path);
        assert.equal(res.headers.get('retry-after'), '5', path);
      }
      assert.equal((await h.request('GET', `/s/${cached.slug}`)).status, 302, 'a cached link still redirects');
    } finally {
      await sql`alter table links_away rename to links`.execute(h.database.db);
    }
    assert.equal((await h.request('GET', `/s/${missed.slug}`)).status, 302, 'the failed lookup was not cached');
  });
});

describe('the client address on the fast path', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let port: number;
  before(async () => {
    database = await freshDatabase('sqlite');
    const config = loadConfig({ PUBLIC_URL: 'http://sho.rt', TRUST_PROXY: '1' });
    app = await buildApp({ config, database });
    // What Fastify's request.ip says (the API's view), beside what the fast path reads from the raw request.
    app.get('/whoami', async (request) => ({ ip: request.ip, fast: clientAddress(request.raw, config.trustProxy), socket: clientAddress(request.raw, false) }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await app.close();
    await database.drop();
  });

  test("equals Fastify's request.ip for every shape of X-Forwarded-For, and is the socket without trust", async () => {
    const forwarded = [
      '',
      'X-Forwarded-For: 203.0.113.7\r\n',
      'X-Forwarded-For:    203.0.113.7  \r\n',
      'X-Forwarded-For: forged, 203.0.113.7\r\n',
      'X-Forwarded-For: forged,203.0.113.7 , \r\n',
      'X-Forwarded-For: a,\t b c \t\r\n',
      'X-Forwarded-For: , ,\r\n',
      'X-Forwarded-For: \r\n',
      'X-Forwarded-For: 2001:db8::1\r\n',
      'X-Forwarded-For: \u00a0203.0.113.9\u00a0\r\n',
      'X-Forwarded-For: 10.0.0.1,\u00a0203.0.113.9\r\n',
      'X-Forwarded-For: not an address\r\n',
    ];
    for (const header of forwarded) {
      const response = await exchange(port, head('GET', '/whoami', `${header}Connection: close\r\n`));
      assert.match(response, /^HTTP\/1\.1 200 /, JSON.stringify(header));
      const body = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
      assert.equal(body.fast, body.ip, JSON.stringify(header));
      assert.equal(body.socket, '127.0.0.1');
    }
    // Two lines leave no single last entry: refused before either reads it (test/platform/http-edge.test.ts).
    const twice = await exchange(port, head('GET', '/whoami', 'X-Forwarded-For: 198.51.100.1\r\nX-Forwarded-For: 203.0.113.8\r\n'));
    assert.match(twice, /^HTTP\/1\.1 400 /);
  });
});

describe('the fast path while the server closes', () => {
  let h: Harness;
  let closing: Promise<void> | undefined;
  before(async () => {
    h = await Harness.start('sqlite');
  });
  // The test closes the app itself; if it failed before that, it is closed here.
  after(async () => {
    await (closing ?? h.app.close());
    await h.database.drop();
  });

  test('a redirect served during the drain says Connection: close, as Fastify does for its routes', async () => {
    const link = await linkWithKey(h);
    const { key } = await h.account();
    const port = Number(new URL(h.baseUrl).port);
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await new Promise((resolve) => socket.once('connect', resolve));
    // A request in flight holds the connection open through the close; a redirect is pipelined behind it.
    const body = '{"target":"https://example.org/drain"}';
    const inFlight = once(h.app.server, 'request');
    socket.write(
      `POST /api/v1/links HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
        `Authorization: Bearer ${key}\r\nIdempotency-Key: ${crypto.randomUUID()}\r\n\r\n${body.slice(0, 5)}`,
    );
    await inFlight;
    closing = h.app.close();
    // Fastify stops listening once its preClose hooks have run, the fast path's among them.
    await until('the server has stopped listening', () => !h.app.server.listening);
    socket.write(`${body.slice(5)}${head('GET', `/s/${link.slug}`)}`);
    await Promise.all([closed, closing]);
    const responses = received.split(/(?=HTTP\/1\.1 )/);
    assert.equal(responses.length, 2, received);
    assert.match(responses[0]!, /^HTTP\/1\.1 200 /);
    assert.match(responses[1]!, /^HTTP\/1\.1 302 /);
    assert.match(responses[1]!, /\r\nConnection: close\r\n/);
  });
});
