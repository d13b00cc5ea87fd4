import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

eachDatabase('credentials are judged before the input', (kind) => {
  let h: Harness;
  let key: string;
  let readOnly: string;
  let linkId: string;
  before(async () => {
    h = await Harness.start(kind);
    const account = await h.account();
    key = account.key;
    readOnly = await h.keyFor(account.accountId, 'links:read');
    linkId = (await h.createLink({ target: 'https://example.org/a' }, { key })).body.id;
  });
  after(async () => h.close());

  const expect = (res: { status: number; body: unknown }, status: number, error: string) => assert.deepEqual([res.status, res.body], [status, { error }]);

  test('no credentials on a key-only endpoint is 401 whatever the body, path or query', async () => {
    expect(await h.request('POST', '/links/capacity', { body: { maxCredits: 1 } }), 401, 'api_key_invalid');
    expect(await h.request('GET', '/links/not-a-uuid'), 401, 'api_key_invalid');
    expect(await h.request('POST', '/quotes', { body: { action: 'x' } }), 401, 'api_key_invalid');
    expect(await h.request('GET', '/links?offset=-5'), 401, 'api_key_invalid');
    expect(await h.request('GET', '/account/usage'), 401, 'api_key_invalid');
    expect(await h.request('PATCH', `/links/${linkId}`, { rawBody: '{bad', headers: { 'content-type': 'application/json' } }), 401, 'api_key_invalid');
  });

  test('an unknown key with a malformed body is 401, not 400', async () => {
    const unknown = `shl_live_${crypto.randomBytes(32).toString('base64url')}`;
    const res = await h.request('PATCH', `/links/${linkId}`, { key: unknown, rawBody: '{bad', headers: { 'content-type': 'application/json' } });
    expect(res, 401, 'api_key_invalid');
  });

  test('a key without the scope is 403 before its input is looked at', async () => {
    expect(await h.request('POST', '/links/capacity', { key: readOnly, body: { nonsense: true } }), 403, 'api_scope_required');
    expect(await h.request('PATCH', `/links/${linkId}`, { key: readOnly, body: { version: 0 } }), 403, 'api_scope_required');
  });

  test('the no-key trial still validates its body: malformed JSON without a key is 400', async () => {
    const res = await h.request('POST', '/links', { rawBody: '{bad', headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() } });
    expect(res, 400, 'invalid_request');
  });

  test('constants of the OpenAPI document are integers where the API says integer', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body;
    // The answer is a $ref to its component (#/components/schemas/<name>).
    const component = doc.paths['/trial'].get.responses['200'].content['application/json'].schema.$ref.split('/').pop();
    const trial = doc.components.schemas[component].properties;
    assert.deepEqual([trial.dailyLinks.type, trial.expiresAfterDays.type], ['integer', 'integer']);
    const capacity = doc.paths['/links/capacity'].post.requestBody.content['application/json'].schema.properties;
    assert.equal(capacity.maxCredits.type, 'integer');
    assert.deepEqual(capacity.maxCredits.const !== undefined ? [capacity.maxCredits.const] : capacity.maxCredits.enum, [50]);
    const patch = doc.paths['/links/{id}'].patch.requestBody.content['application/json'].schema.properties;
    assert.equal(patch.version.maximum, 2_147_483_647);
  });
});
