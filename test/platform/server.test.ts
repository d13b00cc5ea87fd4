import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { commands } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/platform/config.js';
import { openDatabase } from '../../src/platform/database/database.js';
import { ERROR_STATUS } from '../../src/platform/errors.js';
import { freshDatabaseUrl } from '../helpers/databases.js';
import { entryPointArgs } from '../helpers/entry-points.js';
import { ALL_SCOPES, Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';
import { VERSION } from '../../src/platform/version.js';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Server {
  child: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The real server process, as `npm start` runs it (from src/ as it is now instead of the build). It
 * closes its listener as soon as it is signalled: shutdown.test.ts covers SHUTDOWN_GRACE_MS.
 */
function spawnServer(env: Record<string, string>): Server {
  const child = spawn(process.execPath, entryPointArgs('server'), {
    env: { ...process.env, HOST: '127.0.0.1', SHUTDOWN_GRACE_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, base: `http://127.0.0.1:${env.PORT}`, output: () => output, exited };
}

async function waitUntilHealthy(server: Server): Promise<void> {
  await until(
    'the server answers /health',
    async () => {
      if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.output()}`);
      return fetch(`${server.base}/health`).then(
        (res) => res.status === 200,
        () => false, // not listening yet
      );
    },
    20_000,
  );
}

/** API.md part 5: the scope of each endpoint and whether a link's trial token is accepted instead. */
const ACCESS: Record<string, { scope: string | null; trialToken: boolean; anonymous: boolean }> = {
  'get /account/usage': { scope: 'links:read', trialToken: false, anonymous: false },
  'post /quotes': { scope: 'links:read', trialToken: false, anonymous: false },
  'get /links': { scope: 'links:read', trialToken: false, anonymous: false },
  'post /links': { scope: 'links:write', trialToken: false, anonymous: true },
  'get /links/{id}': { scope: 'links:read', trialToken: true, anonymous: false },
  'patch /links/{id}': { scope: 'links:write', trialToken: false, anonymous: false },
  'get /links/{id}/stats': { scope: 'analytics:read', trialToken: true, anonymous: false },
  'post /links/{id}/qr': { scope: 'qr:read', trialToken: true, anonymous: false },
  'post /links/capacity': { scope: 'credits:spend', trialToken: false, anonymous: false },
  'get /trial': { scope: null, trialToken: false, anonymous: true },
};

/** Every method and path the app registers, read from Fastify's own route tree. */
function registeredRoutes(h: Harness): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of h.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const methods = match[3]?.split(', ').filter((m) => m !== '-' && m !== 'HEAD') ?? [];
    for (const method of methods) routes.push(`${method.toLowerCase()} ${stack.join('')}`);
  }
  return routes;
}

describe('the server process', () => {
  let server: Server;
  let databaseUrl: string;
  let drop: () => Promise<void>;
  let apiKey: string;
  let trialToken: string;

  before(async () => {
    ({ url: databaseUrl, drop } = await freshDatabaseUrl('sqlite'));
    const port = await freePort();
    server = spawnServer({ PORT: String(port), DATABASE_URL: databaseUrl, LOG_LEVEL: 'trace' });
    await waitUntilHealthy(server);
    // The operator's commands, run beside the server on its database.
    const database = await openDatabase(databaseUrl);
    const context = { database, config: loadConfig({ DATABASE_URL: databaseUrl }), now: Date.now() };
    const account = (await commands['accounts create']!.run({ email: `${crypto.randomUUID()}@example.test` }, context)) as { id: string };
    apiKey = ((await commands['keys create']!.run({ account: account.id, scopes: ALL_SCOPES }, context)) as { key: string }).key;
    await database.close();
  });
  after(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await server.exited;
    await drop();
  });

  test('/health answers 200 {"status":"ok","version":…}', async () => {
    const res = await fetch(`${server.base}/health`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await res.json(), { status: 'ok', version: VERSION });
  });

  test('the server serves the API: a key made by the operator creates a link and a trial creates one with a token', async () => {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, 'idempotency-key': crypto.randomUUID() };
    const created = await fetch(`${server.base}/api/v1/links`, { method: 'POST', headers, body: JSON.stringify({ target: 'https://example.org/srv' }) });
    assert.equal(created.status, 200);
    const link = (await created.json()) as { id: string; slug: string; shortUrl: string };
    assert.equal(link.shortUrl, `${server.base.replace('127.0.0.1', 'localhost')}/s/${link.slug}`, 'PUBLIC_URL defaults to http://localhost:<PORT>');
    const redirect = await fetch(`${server.base}/s/${link.slug}`, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    const trial = await fetch(`${server.base}/api/v1/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ target: 'https://example.org/trial' }),
    });
    assert.equal(trial.status, 200);
    const body = (await trial.json()) as { id: string; trialToken: string };
    trialToken = body.trialToken;
    const read = await fetch(`${server.base}/api/v1/links/${body.id}`, { headers: { 'x-service-trial-token': trialToken } });
    assert.equal(read.status, 200);
    // Credentials that are wrong are still credentials: they must not reach the logs either.
    const near = `${apiKey.slice(0, -3)}abc`;
    assert.equal((await fetch(`${server.base}/api/v1/links`, { headers: { authorization: `Bearer ${near}` } })).status, 401);
    assert.equal(
      (await fetch(`${server.base}/api/v1/links?search=${encodeURIComponent(apiKey)}`, { headers: { authorization: `Bearer ${apiKey}` } })).status,
      200,
    );
    const badJson = await fetch(`${server.base}/api/v1/links`, { method: 'POST', headers, body: `{"target": "${apiKey}"` });
    assert.equal(badJson.status, 400);
  });

  test('GET /api/v1/openapi.json is an OpenAPI 3.1 document of every /api/v1 route, with scopes, schemas and error responses', async () => {
    const res = await fetch(`${server.base}/api/v1/openapi.json`);
    assert.equal(res.status, 200);
    const doc = await res.json();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(typeof doc.info?.title, 'string');
    assert.equal(doc.info?.version, '1.1.0');
    assert.deepEqual(doc.servers, [{ url: '/api/v1' }]);
    assert.equal(doc.components.securitySchemes.apiKey.scheme, 'bearer');
    assert.equal(doc.components.securitySchemes.trialToken.name, 'X-Service-Trial-Token');

    const documented = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    );
    // Compare with what the application actually registers (same code, in this process).
    const h = await Harness.start('sqlite');
    let registered: string[];
    try {
      registered = registeredRoutes(h)
        .filter((r) => r.split(' ')[1]!.startsWith('/api/v1/') && !r.endsWith('/openapi.json'))
        .map((r) => r.replace('/api/v1', '').replace(/:(\w+)/g, '{$1}'));
    } finally {
      await h.close();
    }
    assert.deepEqual([...documented].sort(), [...registered].sort());
    for (const required of ['post /links', 'get /links', 'get /links/{id}', 'patch /links/{id}', 'get /trial']) {
      assert.ok(documented.includes(required), required);
    }

    // Every $ref points at something in the document.
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of refs) {
      const pointer = ref.slice('"$ref":"'.length, -1);
      assert.ok(pointer.startsWith('#/'), pointer);
      const target = pointer
        .slice(2)
        .split('/')
        .reduce((node: any, part) => node?.[part], doc);
      assert.ok(target, `unresolved ${pointer}`);
    }

    for (const operation of documented) {
      const [method, path] = operation.split(' ') as [string, string];
      const op = doc.paths[path][method];
      const rules = ACCESS[operation];
      assert.ok(Array.isArray(op.security), `${operation} security`);
      assert.ok(Array.isArray(op['x-scopes']), `${operation} x-scopes`);
      if (rules) {
        assert.deepEqual(op['x-scopes'], rules.scope ? [rules.scope] : [], `${operation} x-scopes`);
        if (rules.scope)
          assert.ok(
            op.security.some((s: any) => s.apiKey?.includes(rules.scope)),
            `${operation} needs ${rules.scope}`,
          );
        assert.equal(
          op.security.some((s: any) => 'trialToken' in s),
          rules.trialToken,
          `${operation} trial token`,
        );
        // An empty requirement object is how OpenAPI says "no credentials is also fine".
        const anonymous = op.security.length === 0 || op.security.some((s: any) => Object.keys(s).length === 0);
        assert.equal(anonymous, rules.anonymous, `${operation} callable without credentials`);
      }
      // The public API answers 200; the website's own endpoints may answer 202 or 204 (ADR 65).
      const successes = op.tags?.includes('website') ? ['200', '202', '204'] : ['200'];
      assert.ok(
        successes.some((status) => op.responses[status]),
        `${operation} documents its success`,
      );
      const errors = Object.keys(op.responses).filter((status) => Number(status) >= 400);
      assert.ok(errors.length > 0, `${operation} documents its errors`);
      for (const status of errors) {
        // The Error body, its value narrowed to those of this status (docs/adr/0079-documented-answers.md).
        assert.deepEqual(
          op.responses[status].content['application/json'].schema.allOf[0],
          { $ref: '#/components/schemas/ErrorBody' },
          `${operation} ${status}`,
        );
      }
      if (rules?.scope) {
        for (const status of ['400', '401', '403', '429', '503']) assert.ok(errors.includes(status), `${operation} documents ${status}`);
      }
      if (method === 'post' || method === 'patch') {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        if (!(method === 'post' && path.endsWith('/qr'))) assert.ok(schema, `${operation} documents its body`);
        if (schema) assert.equal(schema.additionalProperties, false, `${operation} body allows no additional properties`);
      }
    }
    assert.deepEqual(doc.paths['/trial'].get.security, []);
    assert.ok(doc.paths['/links'].post.parameters.some((p: any) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key' && p.required));
    assert.deepEqual(doc.components.schemas.ErrorBody, {
      additionalProperties: false,
      title: 'Error',
      type: 'object',
      required: ['error'],
      properties: {
        error: { description: doc.components.schemas.ErrorBody.properties.error.description, type: 'string', enum: Object.keys(ERROR_STATUS) },
      },
    });
  });

  test('SIGTERM lets requests in flight finish, answers one queued behind them, then exits 0 promptly', async () => {
    const { port } = new URL(server.base);
    // Expect: 100-continue makes the server say when it has read a request's head and routed it: from
    // then on the request is in flight.
    const post = (target: string) => {
      const body = JSON.stringify({ target });
      const head =
        `POST /api/v1/links HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Authorization: Bearer ${apiKey}\r\nIdempotency-Key: ${crypto.randomUUID()}\r\nExpect: 100-continue\r\n\r\n`;
      return { start: head + body.slice(0, 10), rest: body.slice(10) };
    };
    const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
    const connect = async () => {
      const socket = net.connect(Number(port), '127.0.0.1');
      const state = { received: '', closed: new Promise((resolve) => socket.on('close', resolve)) };
      socket.on('data', (chunk: Buffer) => (state.received += chunk.toString()));
      await new Promise((resolve) => socket.once('connect', resolve));
      return { socket, state };
    };
    // Two keep-alive connections, each with a request whose body is half sent: in flight at the signal.
    // The second also has a request pipelined behind it, which reaches the router during the drain.
    const lone = await connect();
    const busy = await connect();
    const first = post('https://example.org/in-flight-1');
    const second = post('https://example.org/in-flight-2');
    lone.socket.write(first.start);
    busy.socket.write(second.start);
    await until('both requests are in flight', () => lone.state.received.startsWith(CONTINUE) && busy.state.received.startsWith(CONTINUE));
    const logged = server.output().length;
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    await until('the server logs that it is shutting down', () => server.output().slice(logged).includes('"msg":"shutting down"'));
    assert.equal(server.child.exitCode, null, 'still running while requests are in flight');
    lone.socket.write(first.rest);
    busy.socket.write(`${second.rest}GET /api/v1/trial HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const { code } = await server.exited;
    const elapsed = Date.now() - signalled;
    await Promise.all([lone.state.closed, busy.state.closed]);
    assert.equal(code, 0, server.output());
    assert.ok(elapsed < 2500, `exited ${elapsed} ms after SIGTERM: idle keep-alive connections must not hold the shutdown`);

    const loneAnswer = lone.state.received.slice(CONTINUE.length);
    assert.match(loneAnswer, /^HTTP\/1\.1 200 /);
    assert.ok(loneAnswer.includes('"target":"https://example.org/in-flight-1"'), loneAnswer);
    const responses = busy.state.received.slice(CONTINUE.length).split(/(?=HTTP\/1\.1 )/);
    assert.equal(responses.length, 2, busy.state.received);
    assert.match(responses[0]!, /^HTTP\/1\.1 200 /);
    assert.ok(responses[0]!.includes('"target":"https://example.org/in-flight-2"'), responses[0]);
    // The queued request is answered, or refused with a contract error body: never a framework-shaped one.
    const [status, ...rest] = responses[1]!.split('\r\n\r\n');
    const json = JSON.parse(rest.join('\r\n\r\n'));
    if (/^HTTP\/1\.1 200 /.test(status!)) assert.equal(json.trial, true);
    else assert.deepEqual([status!.split(' ')[1], json], ['503', { error: 'links_unavailable' }]);
  });

  test('the logs never contain an API key or a trial token', () => {
    const logs = server.output();
    assert.ok(logs.length > 0, 'the server logged something');
    assert.ok(trialToken, 'a trial token was issued');
    for (const secret of [apiKey, apiKey.slice('shl_live_'.length), trialToken, trialToken.slice(-43)]) {
      assert.equal(logs.includes(secret), false, 'a secret reached the logs');
    }
  });
});

test('bad environment variables stop the server at once: non-zero exit, every variable named in one message, no stack', async () => {
  const { url, drop } = await freshDatabaseUrl('sqlite');
  const secretUrl = 'postgres:/admin:s3cret-pass@db.internal/shortlinks';
  try {
    const cases: [Record<string, string>, RegExp[]][] = [
      [{ PORT: 'abc', DATABASE_URL: url }, [/PORT/]],
      [{ PORT: '0x50', TRUST_PROXY: 'yes', LOG_LEVEL: 'verbose', DATABASE_URL: url }, [/PORT/, /TRUST_PROXY/, /LOG_LEVEL/]],
      [{ PORT: '3000', RATE_LIMIT_PER_IP: '1e3', DATABASE_URL: secretUrl }, [/RATE_LIMIT_PER_IP/, /DATABASE_URL/]],
    ];
    const results = await Promise.all(
      cases.map(async ([env]) => {
        const server = spawnServer(env);
        return { ...(await server.exited), output: server.output() };
      }),
    );
    cases.forEach(([env, names], i) => {
      const { code, output } = results[i]!;
      assert.notEqual(code, 0, JSON.stringify(env));
      for (const name of names) assert.match(output, name, output);
      assert.doesNotMatch(output, /listening/i);
      assert.doesNotMatch(output, /^\s+at /m, 'a configuration error is a message, not a stack trace');
      assert.equal(output.includes('s3cret-pass'), false, 'a mistyped DATABASE_URL is not echoed with its password');
    });
  } finally {
    await drop();
  }
});
