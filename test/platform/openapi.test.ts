import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { Conformance, served, servedDocument, type Json } from '../helpers/openapi.js';

describe('the OpenAPI document', () => {
  let doc: Json;
  before(async () => {
    doc = await servedDocument();
  });

  test('every operation has a unique operationId and tags declared at the top level with a description', () => {
    const declared = new Map((doc.tags as Json[]).map((tag) => [tag.name, tag.description]));
    const ids = new Set<string>();
    for (const [path, operations] of Object.entries<Json>(doc.paths)) {
      for (const [method, operation] of Object.entries<Json>(operations)) {
        assert.match(operation.operationId ?? '', /^[a-z][A-Za-z]+$/, `${method} ${path} operationId`);
        assert.ok(!ids.has(operation.operationId), `${operation.operationId} is unique`);
        ids.add(operation.operationId);
        assert.ok(operation.tags?.length > 0, `${method} ${path} has tags`);
        for (const tag of operation.tags) assert.ok(declared.get(tag), `${method} ${path}: tag ${tag} is declared with a description`);
      }
    }
  });

  test('Link is one component, closed, and the creation result extends it with trialToken', () => {
    const { Link, LinkCreated } = doc.components.schemas;
    assert.deepEqual(Link.allOf, [{ $ref: '#/components/schemas/LinkFields' }]);
    assert.equal(Link.unevaluatedProperties, false);
    assert.deepEqual(LinkCreated.allOf[0], { $ref: '#/components/schemas/LinkFields' });
    assert.equal(LinkCreated.allOf[1].properties.trialToken.type, 'string');
    assert.equal(LinkCreated.unevaluatedProperties, false);
    assert.deepEqual(doc.paths['/links/{id}'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/Link' });
    assert.deepEqual(doc.paths['/links'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/LinkList' });
  });

  test('429 and 503 document Retry-After, and POST /links its trial rules, target schemes and credits:spend', () => {
    for (const [path, operations] of Object.entries<Json>(doc.paths)) {
      for (const [method, operation] of Object.entries<Json>(operations)) {
        assert.ok(operation.responses['503'], `${method} ${path} documents 503`);
        for (const status of ['429', '503'].filter((code) => operation.responses[code] !== undefined)) {
          assert.deepEqual(operation.responses[status].headers?.['Retry-After'], { $ref: '#/components/headers/Retry-After' }, `${method} ${path} ${status}`);
        }
      }
    }
    const create = doc.paths['/links'].post;
    assert.match(create.description, /Only `target`, `title` and `maxCredits` 0 are accepted/);
    assert.match(create.description, /`http` or `https`/);
    assert.match(create.responses['403'].description, /credits:spend/);
    assert.deepEqual(Object.keys(create.responses['402'].content['application/json'].examples).sort(), [
      'api_budget_exceeded',
      'credits_required',
      'link_allowance_required',
    ]);
  });
});

eachDatabase('real answers conform to the OpenAPI document', (kind) => {
  let h: Harness;
  let conformance: Conformance;
  before(async () => {
    h = await Harness.start(kind);
    conformance = new Conformance(await served(h));
  });
  after(async () => h.close());

  test('a link created with a key, then read and listed', async () => {
    const { key } = await h.account();
    const created = await h.createLink({ target: 'https://example.org/conform', title: 'Conform' }, { key });
    conformance.check('post', '/links', created);
    conformance.check('get', '/links/{id}', await h.request('GET', `/links/${created.body.id}`, { key }));
    conformance.check('get', '/links', await h.request('GET', '/links?search=conform', { key }));
  });

  test('a trial link with its token, read with that token', async () => {
    const created = await h.createLink({ target: 'https://example.org/trial-conform' });
    assert.equal(typeof created.body.trialToken, 'string');
    conformance.check('post', '/links', created);
    const read = await h.request('GET', `/links/${created.body.id}`, { headers: { 'x-service-trial-token': created.body.trialToken } });
    assert.equal(read.body.trialToken, undefined);
    conformance.check('get', '/links/{id}', read);
  });

  test('stats as JSON and as CSV, usage and the trial allowance', async () => {
    const { key } = await h.account();
    const created = await h.createLink({ target: 'https://example.org/stats-conform' }, { key });
    conformance.check('get', '/links/{id}/stats', await h.request('GET', `/links/${created.body.id}/stats?days=7`, { key }));
    conformance.check('get', '/links/{id}/stats', await h.request('GET', `/links/${created.body.id}/stats?format=csv`, { key }));
    conformance.check('get', '/account/usage', await h.request('GET', '/account/usage', { key }));
    conformance.check('get', '/trial', await h.request('GET', '/trial'));
  });

  test('errors: a 400, a 401, a 402 and a 404 carry values their operation lists', async () => {
    const { key } = await h.account();
    const badTarget = await h.createLink({ target: 'ftp://example.org/file' }, { key });
    assert.equal(badTarget.status, 400);
    conformance.check('post', '/links', badTarget);
    const noKey = await h.request('GET', '/links');
    assert.equal(noKey.status, 401);
    conformance.check('get', '/links', noKey);
    const poor = await h.request('POST', '/links/capacity', { key, body: { maxCredits: 50 }, headers: { 'idempotency-key': crypto.randomUUID() } });
    assert.equal(poor.status, 402);
    conformance.check('post', '/links/capacity', poor);
    const missing = await h.request('GET', `/links/${crypto.randomUUID()}`, { key });
    assert.equal(missing.status, 404);
    conformance.check('get', '/links/{id}', missing);
  });
});

eachDatabase('a refusal by the rate limiter conforms to the OpenAPI document', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { RATE_LIMIT_PER_IP: '1' });
  });
  after(async () => h.close());

  test('429 rate_limited carries Retry-After and the rate-limit headers as documented', async () => {
    const conformance = new Conformance(await served(h));
    conformance.check('get', '/trial', await h.request('GET', '/trial'));
    const refused = await h.request('GET', '/trial');
    assert.equal(refused.status, 429);
    assert.ok(refused.headers.has('retry-after'));
    conformance.check('get', '/trial', refused);
  });
});
