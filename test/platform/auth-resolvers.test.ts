import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { installAuth } from '../../src/platform/auth/auth-plugin.js';
import type { Principal } from '../../src/platform/auth/principal.js';
import type { PrincipalResolver } from '../../src/platform/auth/route-access.js';
import { AppError } from '../../src/platform/errors.js';

/** A credential kind plugged in beside the built-in ones: a header naming a signed-in account. */
const headerSession: PrincipalResolver = {
  kind: 'session',
  security: () => ({ session: [] }),
  async resolve(request) {
    const value = request.headers['x-session'];
    if (value === undefined) return undefined;
    if (value !== 'good') throw new AppError('api_key_invalid');
    return { kind: 'session', accountId: 'account-1', sessionId: 'session-1', email: 'owner@example.test' };
  },
};

/** A key kind that knows one read-only key, so scope refusals can be seen next to the session. */
const headerKey: PrincipalResolver = {
  kind: 'key',
  security: (rule) => (rule.sessionOnly ? undefined : { apiKey: [rule.scope] }),
  async resolve(request) {
    if (request.headers['x-key'] === undefined) return undefined;
    return { kind: 'key', keyId: 'key-1', accountId: 'account-1', scopes: new Set(['links:read'] as const), budget: null };
  },
};

describe('authentication with a plugged-in credential kind', () => {
  let app: FastifyInstance;
  const documented = new Map<string, unknown>();
  before(async () => {
    app = Fastify();
    app.setErrorHandler((error, _request, reply) => {
      const status = error instanceof AppError ? error.status : 500;
      return reply.status(status).send({ error: error instanceof AppError ? error.code : 'internal' });
    });
    installAuth(app, [headerKey, headerSession]);
    // Runs after the auth plugin's own onRoute hook, so it sees the schema that hook completed.
    app.addHook('onRoute', (route) => void documented.set(route.url, (route.schema as { security?: unknown } | undefined)?.security));
    const who = async (request: { principal: Principal }) => ({ kind: request.principal.kind });
    app.get('/read', { config: { auth: { scope: 'links:read' } } }, who);
    app.post('/spend', { config: { auth: { scope: 'credits:spend' } } }, who);
    app.get('/keys', { config: { auth: { scope: 'links:read', sessionOnly: true } } }, who);
    app.get('/open', { config: { auth: 'public' } }, who);
    await app.ready();
  });
  after(async () => app.close());

  const call = async (method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}) => {
    const res = await app.inject({ method, url, headers });
    return [res.statusCode, res.json()];
  };

  test('a session names its account and holds every scope', async () => {
    assert.deepEqual(await call('GET', '/read', { 'x-session': 'good' }), [200, { kind: 'session' }]);
    assert.deepEqual(await call('POST', '/spend', { 'x-session': 'good' }), [200, { kind: 'session' }]);
  });

  test('a bad session is 401 api_key_invalid, and so is nobody where credentials are needed', async () => {
    assert.deepEqual(await call('GET', '/read', { 'x-session': 'forged' }), [401, { error: 'api_key_invalid' }]);
    assert.deepEqual(await call('GET', '/read'), [401, { error: 'api_key_invalid' }]);
  });

  test('the first credential in the list decides: a key sent beside a session is judged as the key', async () => {
    assert.deepEqual(await call('POST', '/spend', { 'x-key': 'k', 'x-session': 'good' }), [403, { error: 'api_scope_required' }]);
  });

  test('a session-only route refuses a key with 403 and takes the session', async () => {
    assert.deepEqual(await call('GET', '/keys', { 'x-key': 'k' }), [403, { error: 'api_scope_required' }]);
    assert.deepEqual(await call('GET', '/keys', { 'x-session': 'good' }), [200, { kind: 'session' }]);
  });

  test('a public route ignores every credential, even a bad one', async () => {
    assert.deepEqual(await call('GET', '/open', { 'x-session': 'forged' }), [200, { kind: 'anonymous' }]);
  });

  test('each route’s OpenAPI security is written from its auth option and the resolvers that take it', () => {
    const security = (url: string) => documented.get(url);
    assert.deepEqual(security('/read'), [{ apiKey: ['links:read'] }, { session: [] }]);
    assert.deepEqual(security('/keys'), [{ session: [] }]);
    assert.deepEqual(security('/open'), []);
  });

  test('a route that does not say who may call it is refused when it is registered', async () => {
    const bare = Fastify();
    installAuth(bare, [headerSession]);
    assert.throws(() => bare.get('/unsaid', async () => ({})), /does not declare config.auth/);
    await bare.close();
  });
});
