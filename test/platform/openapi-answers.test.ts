import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ERROR_STATUS, type ErrorCode } from '../../src/platform/errors.js';
import { SCOPES } from '../../src/platform/auth/principal.js';
import { STRONG_PASSWORD, freshEmail, signIn } from '../helpers/accounts.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness, type ApiResponse } from '../helpers/harness.js';
import { Conformance, served, servedDocument, type Json } from '../helpers/openapi.js';

interface Operation {
  method: string;
  path: string;
  operation: Json;
}

const operationsOf = (doc: Json): Operation[] =>
  Object.entries<Json>(doc.paths).flatMap(([path, operations]) => Object.entries<Json>(operations).map(([method, operation]) => ({ method, path, operation })));

/** The error values one status of an operation documents: its body's `enum`. */
function documentedValues(operation: Json, status: number): string[] {
  const schema = operation.responses[String(status)]?.content?.['application/json']?.schema;
  return schema?.allOf?.[1]?.properties?.error?.enum ?? [];
}

const SAFE = new Set(['get', 'head', 'options']);
const takesSession = (operation: Json) => (operation.security ?? []).some((requirement: Json) => requirement.session !== undefined);
const sessionOnly = (operation: Json) => operation.security?.length === 1 && takesSession(operation);
const isPublic = (operation: Json) => (operation.security ?? []).length === 0;
/** The operator console: every refusal is 404, so none of the 401 and 403 probes below apply. */
const hidden = (operation: Json) => operation['x-hidden'] === true;

describe('every error an operation can answer is in the OpenAPI document', () => {
  let doc: Json;
  before(async () => {
    doc = await servedDocument();
  });

  test('each error status lists exactly its own error values as an enum, each with an example, all of that status in the catalog', () => {
    for (const { method, path, operation } of operationsOf(doc)) {
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content['application/json'];
        assert.deepEqual(media.schema.allOf[0], { $ref: '#/components/schemas/ErrorBody' }, `${method} ${path} ${status}`);
        const values = documentedValues(operation, Number(status));
        assert.ok(values.length > 0, `${method} ${path} ${status} lists its values`);
        assert.deepEqual([...values].sort(), Object.keys(media.examples).sort(), `${method} ${path} ${status}: an example per value`);
        for (const value of values) assert.equal(ERROR_STATUS[value as ErrorCode], Number(status), `${method} ${path}: ${value} is a ${status} in the catalog`);
        for (const value of values)
          assert.match(response.description, new RegExp(`\`${value}\`: `), `${method} ${path} ${status} says when ${value} is answered`);
      }
    }
  });

  test('each operation lists what its access rule and the request pipeline make it answer', () => {
    for (const { method, path, operation } of operationsOf(doc)) {
      const where = `${method} ${path}`;
      assert.ok(documentedValues(operation, 400).includes('invalid_request'), `${where}: 400`);
      assert.ok(documentedValues(operation, 503).includes('links_unavailable'), `${where}: 503`);
      if (hidden(operation)) {
        assert.ok(documentedValues(operation, 404).includes('not_found'), `${where}: 404 for everyone else`);
        assert.deepEqual([documentedValues(operation, 401), documentedValues(operation, 403)], [[], []], `${where}: no 401 or 403`);
        continue;
      }
      if (!isPublic(operation)) {
        assert.ok(documentedValues(operation, 401).includes('api_key_invalid'), `${where}: 401 without credentials`);
        assert.ok(documentedValues(operation, 403).includes('api_scope_required'), `${where}: 403 for a credential it does not take`);
      }
      // The CSRF check: state changes made with a session, and every state change of a website-only route.
      if (!SAFE.has(method) && (takesSession(operation) || operation['x-website-only'] === true)) {
        assert.ok(documentedValues(operation, 403).includes('api_scope_required'), `${where}: 403 for a cross-site request`);
      }
      assert.equal(
        documentedValues(operation, 429).includes('rate_limited'),
        operation.responses['200']?.headers?.RateLimit !== undefined ||
          operation.responses['204']?.headers?.RateLimit !== undefined ||
          operation.responses['202']?.headers?.RateLimit !== undefined,
        `${where}: 429 and the rate-limit headers go together`,
      );
    }
  });

  test('the website’s own operations document 401 without a session and 403 for an API key', () => {
    for (const { method, path, operation } of operationsOf(doc).filter(({ operation }) => sessionOnly(operation) && !hidden(operation))) {
      assert.match(operation.responses['401'].description, /session/, `${method} ${path}`);
      assert.match(operation.responses['403'].description, /API key/, `${method} ${path}`);
    }
    assert.ok(operationsOf(doc).some(({ path }) => path === '/keys'));
  });
});

eachDatabase('answers provoked on every operation are documented', (kind) => {
  let h: Harness;
  let conformance: Conformance;
  let operations: Operation[];
  let session: string;
  let otherSession: string;
  let trialToken: string;
  const keys = new Map<string, string>();

  /** Calls the operation as documented, its `{id}` some unknown id; JSON `{}` as the body of a state change. */
  const call = async ({ method, path }: Operation, headers: Record<string, string>): Promise<ApiResponse> => {
    const url = path.replaceAll('{id}', crypto.randomUUID());
    const res = await h.request(method.toUpperCase(), url, { headers, ...(SAFE.has(method) ? {} : { body: {} }) });
    conformance.check(method, path, res);
    return res;
  };
  /** What the probe expects, or 404 not_found on a hidden operation, which refuses everyone alike. */
  const expectOf = (op: Operation) => (res: ApiResponse, status: number, error: string, what: string) =>
    assert.deepEqual([res.status, res.body?.error], hidden(op.operation) ? [404, 'not_found'] : [status, error], what);

  before(async () => {
    h = await Harness.start(kind);
    const doc = await served(h);
    conformance = new Conformance(doc);
    operations = operationsOf(doc);
    const email = freshEmail();
    const { id } = await h.cli('accounts create', { email, password: STRONG_PASSWORD });
    for (const scope of SCOPES) keys.set(scope, await h.keyFor(id, scope));
    session = (await signIn(h, email, STRONG_PASSWORD)).session!;
    otherSession = (await signIn(h, email, STRONG_PASSWORD)).session!;
    trialToken = (await h.createLink({ target: 'https://example.org/trial-probe' })).body.trialToken;
  });
  after(async () => h.close());

  test('without credentials: 401 wherever credentials are needed', async () => {
    for (const op of operations) {
      const res = await call(op, {});
      if (!isPublic(op.operation) && !(op.operation.security as Json[]).some((requirement) => Object.keys(requirement).length === 0)) {
        expectOf(op)(res, 401, 'api_key_invalid', `${op.method} ${op.path}`);
      }
    }
  });

  test('with a malformed or unknown key: 401 wherever credentials are judged', async () => {
    for (const authorization of ['Bearer nonsense', `Bearer shl_live_${'A'.repeat(43)}`]) {
      for (const op of operations) {
        const res = await call(op, { authorization });
        if (!isPublic(op.operation)) expectOf(op)(res, 401, 'api_key_invalid', `${op.method} ${op.path}`);
      }
    }
  });

  test('with a key that lacks the scope, or any key where only a session is taken: 403', async () => {
    for (const op of operations.filter(({ operation }) => !isPublic(operation))) {
      const needed: string = op.operation['x-scopes'][0];
      const key = sessionOnly(op.operation) ? keys.get(needed)! : keys.get(needed === 'qr:read' ? 'analytics:read' : 'qr:read')!;
      expectOf(op)(await call(op, { authorization: `Bearer ${key}` }), 403, 'api_scope_required', `${op.method} ${op.path}`);
    }
  });

  test('with a trial token where it is not taken, or for another link: 403', async () => {
    for (const op of operations.filter(({ operation }) => !isPublic(operation))) {
      const res = await call(op, { 'x-service-trial-token': trialToken });
      const anonymous = (op.operation.security as Json[]).some((requirement) => Object.keys(requirement).length === 0);
      if (!anonymous) expectOf(op)(res, 403, 'api_scope_required', `${op.method} ${op.path}`);
    }
  });

  test('a state change with a session that is not JSON from the website’s origin: 403 (CSRF)', async () => {
    for (const op of operations.filter(({ method, operation }) => !SAFE.has(method) && (takesSession(operation) || operation['x-website-only']))) {
      expectOf(op)(await call(op, { cookie: `sl_session=${session}` }), 403, 'api_scope_required', `${op.method} ${op.path}`);
    }
  });

  test('the session cookie twice where only a session is taken: 401', async () => {
    for (const op of operations.filter(({ operation }) => sessionOnly(operation))) {
      const res = await call(op, { cookie: `sl_session=${session}; sl_session=${otherSession}`, origin: h.config.publicUrl });
      expectOf(op)(res, 401, 'api_key_invalid', `${op.method} ${op.path}`);
    }
  });

  test('a session from the website’s own page gets documented answers everywhere', async () => {
    for (const op of operations) await call(op, { cookie: `sl_session=${session}`, origin: h.config.publicUrl });
  });
});

eachDatabase('answers provoked by the rate limiter are documented', (kind) => {
  test('once the network’s requests are spent, exactly the operations that document 429 answer it', async () => {
    const h = await Harness.start(kind, { RATE_LIMIT_PER_IP: '1', WEBSITE_RATE_LIMIT_PER_IP: '1' });
    try {
      const doc = await served(h);
      const conformance = new Conformance(doc);
      // The test's clock stands still: the one request of the burst is spent for good.
      await h.request('GET', '/trial');
      for (const { method, path, operation } of operationsOf(doc)) {
        const res = await h.request(method.toUpperCase(), path.replaceAll('{id}', crypto.randomUUID()), SAFE.has(method) ? {} : { body: {} });
        conformance.check(method, path, res);
        assert.equal(res.status === 429, documentedValues(operation, 429).includes('rate_limited'), `${method} ${path}: ${res.status}`);
      }
    } finally {
      await h.close();
    }
  });
});
