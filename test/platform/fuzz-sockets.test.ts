import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { Harness } from '../helpers/harness.js';

/**
 * Hostile input below HTTP parsing: oversized and malformed heads, and clients that trickle bytes to
 * hold sockets (slowloris). Timeouts are made small here so the cut-off is observed in well under a
 * second; production uses the defaults of src/platform/config.ts. No database differences are involved.
 */
const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 600;
/** Below node's own default (16 KiB), so a header block between the two shows the setting is applied. */
const MAX_HEADER_BYTES = 8192;
const IDLE_SOCKET_TIMEOUT_MS = 500;

let h: Harness;
let port: number;
before(async () => {
  h = await Harness.start('sqlite', {
    HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    MAX_HEADER_BYTES: String(MAX_HEADER_BYTES),
    IDLE_SOCKET_TIMEOUT_MS: String(IDLE_SOCKET_TIMEOUT_MS),
  });
  port = Number(new URL(h.baseUrl).port);
});
after(async () => h.close());

interface Exchange {
  response: string;
  closedAfterMs: number;
}

/** Writes `first`, then `drip` every 50 ms until the server closes the socket (or 5 s pass). */
function converse(first: string | Buffer, drip?: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let response = '';
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`socket still open after 5 s; got ${JSON.stringify(response.slice(0, 200))}`));
    }, 5000);
    socket.on('connect', () => {
      socket.write(first);
      if (drip) timer = setInterval(() => socket.writable && socket.write(drip), 50);
    });
    socket.on('data', (chunk) => (response += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ response, closedAfterMs: Date.now() - started });
    });
  });
}

const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

test('headers larger than the limit get a clean 400 invalid_request and the connection is closed', async () => {
  const { response } = await converse(`GET /api/v1/trial HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  assert.equal(statusOf(response), 400);
  assert.deepEqual(bodyOf(response), { error: 'invalid_request' });
  assert.match(response, /content-type: application\/json/i);
});

test("the configured header limit holds on the redirect path too, below node's default", async () => {
  for (const path of ['/s/abc', '/api/v1/trial']) {
    const { response } = await converse(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(12_000)}\r\n\r\n`);
    assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }], path);
  }
});

test('the server the app makes for itself carries the limits Fastify would have set on its own', () => {
  const server = h.app.server;
  assert.equal(server.headersTimeout, HEADERS_TIMEOUT_MS);
  assert.equal(server.requestTimeout, REQUEST_TIMEOUT_MS);
  assert.equal(server.keepAliveTimeout, 5_000);
  // The idle timeout is set per socket where something is pending (the tests below), not as server.timeout.
  assert.equal(server.timeout, 0);
});

test('a connection that sends nothing is cut off after the headers timeout', async () => {
  const { closedAfterMs, response } = await converse('');
  assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }]);
  assert.ok(closedAfterMs >= HEADERS_TIMEOUT_MS - 50, `closed too early: ${closedAfterMs} ms`);
  assert.ok(closedAfterMs < HEADERS_TIMEOUT_MS + 1000, `held for ${closedAfterMs} ms`);
});

/**
 * Sends up to `count` pipelined requests for `path` as fast as the server reads them and reads
 * nothing, so the server's answers back up until it stops reading too. Resolves with the server
 * side's socket timeout when it fires (node then closes the socket), or undefined after 20 s.
 */
function stallReading(path: string, count: number): Promise<{ timeoutMs: number; pendingBytes: number } | undefined> {
  return new Promise((resolve) => {
    const done = (result: { timeoutMs: number; pendingBytes: number } | undefined) => {
      clearTimeout(giveUp);
      client.destroy();
      resolve(result);
    };
    const giveUp = setTimeout(() => done(undefined), 20_000);
    h.app.server.once('connection', (socket: net.Socket) => {
      socket.once('timeout', () => done({ timeoutMs: socket.timeout ?? 0, pendingBytes: socket.writableLength }));
    });
    const client = net.connect(port, '127.0.0.1');
    client.pause();
    client.on('error', () => {});
    let sent = 0;
    const batch = `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(100);
    const pump = () => {
      while (sent < count) {
        sent += 100;
        if (!client.write(batch)) return void client.once('drain', pump);
      }
    };
    client.on('connect', pump);
  });
}

test('a client that stops reading its answers is cut off after the idle timeout, on a short link and on the API', async () => {
  // Many megabytes of answers in all, more than the socket buffers on both ends hold (about 4 MB).
  for (const [path, count] of [
    ['/s/nosuchslug', 40_000],
    ['/api/v1/openapi.json', 400],
  ] as const) {
    const fired = await stallReading(path, count);
    assert.ok(fired, `${path}: the stalled socket was still open after 20 s`);
    // The idle timeout, not node's keep-alive timeout (which follows only a finished answer).
    assert.equal(fired.timeoutMs, IDLE_SOCKET_TIMEOUT_MS, path);
    assert.ok(fired.pendingBytes > 0, `${path}: nothing was left to write, so nothing stalled`);
  }
});

test('a request line too long for the header limit is refused the same way', async () => {
  const { response } = await converse(`GET /s/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }]);
});

test('unparseable HTTP gets 400 invalid_request', async () => {
  for (const garbage of [
    'HELLO\r\n\r\n',
    'GET / HTTP/9.9\r\n\r\n',
    'GET /api/v1/trial HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
    '\u0000\u0001\u0002\r\n\r\n',
  ]) {
    const { response } = await converse(garbage);
    assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }], JSON.stringify(garbage));
  }
});

test('a client trickling its headers is cut off soon after the headers timeout, on the API and on a short link', async () => {
  for (const path of ['/api/v1/trial', '/s/abc']) {
    const { closedAfterMs, response } = await converse(`GET ${path} HTTP/1.1\r\nHost: x\r\n`, 'X-Slow: 1\r\n');
    assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }], path);
    assert.ok(closedAfterMs >= HEADERS_TIMEOUT_MS - 50, `${path} closed too early: ${closedAfterMs} ms`);
    assert.ok(closedAfterMs < HEADERS_TIMEOUT_MS + 1000, `${path} held for ${closedAfterMs} ms`);
  }
});

test('a client trickling its body is cut off soon after the request timeout', async () => {
  const head = 'POST /api/v1/links HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{';
  const { closedAfterMs, response } = await converse(head, ' ');
  assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }]);
  assert.ok(closedAfterMs >= REQUEST_TIMEOUT_MS - 50, `closed too early: ${closedAfterMs} ms`);
  assert.ok(closedAfterMs < REQUEST_TIMEOUT_MS + 1000, `held for ${closedAfterMs} ms`);
});

test('a prompt client is served normally under the same timeouts', async () => {
  const res = await h.request('GET', '/trial');
  assert.equal(res.status, 200);
});

test('a body over 1 MiB is 400 invalid_request', async () => {
  const { key } = await h.account();
  const res = await h.createLink({ target: 'https://example.org/', title: 'x'.repeat(1024 * 1024) }, { key });
  assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }]);
});

/** Exactly `count` header lines: Host, Connection: close, then short fillers (all well under MAX_HEADER_BYTES). */
const linesOf = (count: number, last = '') => `Host: x\r\nConnection: close\r\n${'a:1\r\n'.repeat(count - 2 - (last ? 1 : 0))}${last}`;

test('a request with as many header lines as node keeps is 400 invalid_request, on the API and on a short link: what follows is never silently dropped', async () => {
  for (const path of ['/api/v1/trial', '/s/abc']) {
    const { response } = await converse(`GET ${path} HTTP/1.1\r\n${linesOf(1000)}\r\n`);
    assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }], path);
  }
  // An invalid key past the limit must not turn the request into an anonymous trial creation.
  const body = JSON.stringify({ target: 'https://example.org/past-the-limit' });
  const head = `POST /api/v1/links HTTP/1.1\r\n${linesOf(1500, 'Authorization: Bearer shl_live_forged\r\n')}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  const { response } = await converse(head + body);
  assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }]);
  const served = await converse(`GET /api/v1/trial HTTP/1.1\r\n${linesOf(999)}\r\n`);
  assert.equal(statusOf(served.response), 200, 'one line fewer is served');
});

test('a repeated Host, Authorization, trial token, Idempotency-Key or Content-Type is 400 invalid_request, never the first one silently', async () => {
  const { key } = await h.account();
  const json = 'Content-Type: application/json\r\nContent-Length: 2\r\n';
  const cases: [string, string][] = [
    ['GET /api/v1/trial', 'Host: x\r\nHost: evil.example\r\n'],
    ['GET /api/v1/links', `Host: x\r\nAuthorization: Bearer ${key}\r\nAuthorization: Bearer shl_live_other\r\n`],
    ['GET /api/v1/links', `Host: x\r\nAuthorization: Bearer ${key}\r\nauthorization: Bearer ${key}\r\n`],
    ['GET /api/v1/links/00000000-0000-4000-8000-000000000000', 'Host: x\r\nX-Service-Trial-Token: a\r\nX-Service-Trial-Token: b\r\n'],
    [
      'POST /api/v1/links/capacity',
      `Host: x\r\nAuthorization: Bearer ${key}\r\nIdempotency-Key: ${crypto.randomUUID()}\r\nIdempotency-Key: ${crypto.randomUUID()}\r\n${json}`,
    ],
    ['POST /api/v1/quotes', `Host: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: text/plain\r\n${json}`],
  ];
  for (const [line, headers] of cases) {
    const { response } = await converse(`${line} HTTP/1.1\r\n${headers}\r\n${headers.includes('Content-Length') ? '{}' : ''}`);
    assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }], `${line}: ${headers.slice(9, 60)}`);
  }
});

test('HTTP/1.1 without Host is 400 with the error body, on the API and on a short link; HTTP/1.0 needs none', async () => {
  for (const path of ['/api/v1/trial', '/s/abc']) {
    const { response } = await converse(`GET ${path} HTTP/1.1\r\n\r\n`);
    assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }], path);
    assert.match(response, /content-type: application\/json/i);
  }
  const { response } = await converse('GET /api/v1/trial HTTP/1.0\r\n\r\n');
  assert.match(response, /^HTTP\/1\.1 200 /);
});

test('an expectation other than 100-continue is 400 with the error body; 100-continue is honoured', async () => {
  for (const expect of ['200-ok', 'nonsense', '100-continued']) {
    const { response } = await converse(`GET /api/v1/trial HTTP/1.1\r\nHost: x\r\nExpect: ${expect}\r\n\r\n`);
    assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }], expect);
  }
  const { response } = await converse('GET /api/v1/trial HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
  assert.match(response, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
});

test('CONNECT is answered 400 with the error body, not dropped', async () => {
  const { response } = await converse('CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n');
  assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }]);
});

test('a JSON body with bytes that are not UTF-8 is 400 invalid_request and creates nothing', async () => {
  const { key } = await h.account();
  const body = Buffer.concat([Buffer.from('{"target":"https://example.org/","title":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')]);
  const head = `POST /api/v1/links HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nIdempotency-Key: ${crypto.randomUUID()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  const { response } = await converse(Buffer.concat([Buffer.from(head), body]));
  assert.deepEqual([statusOf(response), bodyOf(response)], [400, { error: 'invalid_request' }]);
  assert.deepEqual((await h.request('GET', '/links', { key })).body.links, []);
});
