import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { freshDatabaseUrl } from '../helpers/databases.js';
import { until } from '../helpers/load.js';
import { runCli, startServer, type ServerProcess } from '../helpers/processes.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A client address only the proxy header carries: it must appear in no log line. */
const CLIENT = '203.0.113.77';

type LogLine = Record<string, unknown>;

describe('request logs and request ids (the real server, logging at info)', () => {
  let server: ServerProcess;
  let drop: () => Promise<void>;
  let key: string;
  let slug: string;

  /** Every JSON line the server has written so far. */
  const lines = (): LogLine[] =>
    server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  const lineOf = async (id: string): Promise<LogLine> => {
    let found: LogLine | undefined;
    await until(`the log line of request ${id}`, () => (found = lines().find((line) => line.reqId === id)) !== undefined, 10_000);
    return found!;
  };
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(server.baseUrl + path, { headers: { 'x-forwarded-for': CLIENT, ...headers }, redirect: 'manual' });

  before(async () => {
    const database = await freshDatabaseUrl('sqlite');
    drop = database.drop;
    const cli = async (...args: string[]) => JSON.parse((await runCli(database.url, ...args)).stdout);
    const account = await cli('accounts', 'create', '--email', `${crypto.randomUUID()}@example.test`);
    key = (await cli('keys', 'create', '--account', account.id, '--scopes', 'links:read,links:write')).key;
    server = await startServer({ DATABASE_URL: database.url, LOG_LEVEL: 'info', TRUST_PROXY: '1' });
    const created = await fetch(`${server.baseUrl}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ target: 'https://example.org/logged' }),
    });
    slug = ((await created.json()) as { slug: string }).slug;
  });
  after(async () => {
    await server?.stop();
    await drop?.();
  });

  test('an API request is logged once answered: its id, method, route pattern, status and duration, and nothing naming the client', async () => {
    const id = `trace-${crypto.randomUUID()}`;
    const res = await get('/api/v1/links?search=private-words', { authorization: `Bearer ${key}`, 'x-request-id': id });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-request-id'), id);
    const line = await lineOf(id);
    assert.deepEqual(
      { ...line, ms: typeof line.ms, time: typeof line.time, pid: typeof line.pid, hostname: typeof line.hostname },
      {
        level: 30,
        time: 'number',
        pid: 'number',
        hostname: 'string',
        reqId: id,
        method: 'GET',
        route: '/api/v1/links',
        status: 200,
        ms: 'number',
        msg: 'request',
      },
    );
    const text = JSON.stringify(line);
    for (const secret of [CLIENT, '127.0.0.1', key, 'private-words']) assert.equal(text.includes(secret), false, `${secret} is not logged`);
  });

  test('no line the server writes names the client’s address', async () => {
    await get('/api/v1/trial');
    await get('/app/links');
    await get(`/s/${slug}`);
    await lineOf((await get('/api/v1/trial')).headers.get('x-request-id')!);
    assert.equal(server.output().includes(CLIENT), false);
  });

  test('refusals and website pages are logged and carry X-Request-Id too', async () => {
    const cases: Array<[path: string, headers: Record<string, string>, status: number, route: string]> = [
      ['/api/v1/links', {}, 401, '/api/v1/links'],
      [`/api/v1/links/${crypto.randomUUID()}`, { authorization: `Bearer ${key}` }, 404, '/api/v1/links/:id'],
      ['/api/v1/links/not-a-uuid', { authorization: `Bearer ${key}` }, 400, '/api/v1/links/:id'],
      ['/api/v1/no-such-route', {}, 404, 'unmatched'],
      ['/app/links', {}, 200, '/app/*'],
      ['/', {}, 200, '/'],
    ];
    for (const [path, headers, status, route] of cases) {
      const res = await get(path, headers);
      assert.equal(res.status, status, path);
      const id = res.headers.get('x-request-id');
      assert.match(id ?? '', UUID, `${path} answers a generated X-Request-Id`);
      const line = await lineOf(id!);
      assert.deepEqual([line.route, line.status], [route, status], path);
    }
  });

  test('an incoming X-Request-Id is kept only when well-formed and short; otherwise the request gets a UUID', async () => {
    for (const given of ['0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'Root=1-abc:def.ghi_jk+l/m', 'x'.repeat(64)]) {
      assert.equal((await get('/api/v1/trial', { 'x-request-id': given })).headers.get('x-request-id'), given);
    }
    for (const given of ['x'.repeat(65), 'has space', 'a,b', 'quote"d', 'caf\u00e9', '']) {
      const answered = (await get('/api/v1/trial', { 'x-request-id': given })).headers.get('x-request-id');
      assert.match(answered ?? '', UUID, JSON.stringify(given));
    }
    const twice = await fetch(`${server.baseUrl}/api/v1/trial`, {
      headers: [
        ['x-request-id', 'first-id'],
        ['x-request-id', 'second-id'],
      ],
    });
    assert.match(twice.headers.get('x-request-id') ?? '', UUID, 'a repeated header');
  });

  test('redirects write no log line and answer no X-Request-Id; they are counted instead', async () => {
    const before = `before-${crypto.randomUUID()}`;
    const afterId = `after-${crypto.randomUUID()}`;
    await get('/api/v1/trial', { 'x-request-id': before });
    await lineOf(before);
    const count = lines().length;
    const encoded = `/s/%${slug.charCodeAt(0).toString(16)}${slug.slice(1)}`;
    for (const path of [`/s/${slug}`, `/q/${slug}`, '/s/no-such-slug', encoded, `/s/${slug}/extra`]) {
      const res = await get(path, { 'x-request-id': `redirect-${crypto.randomUUID()}` });
      assert.ok([302, 404].includes(res.status), `${path}: ${res.status}`);
      assert.equal(res.headers.get('x-request-id'), null, path);
    }
    await get('/api/v1/trial', { 'x-request-id': afterId });
    await lineOf(afterId);
    assert.deepEqual(
      lines()
        .slice(count)
        .map((line) => line.reqId),
      [afterId],
    );
  });
});
