import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

const LINK_FIELDS = [
  'created_at',
  'environment',
  'id',
  'qrUrl',
  'shortUrl',
  'slug',
  'status',
  'tags',
  'target',
  'title',
  'trial',
  'updated_at',
  'version',
  'visits',
];

eachDatabase('links API', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('a created link has exactly the Link fields, with URLs built from PUBLIC_URL', async () => {
    const { key } = await h.account();
    const res = await h.createLink({ target: 'https://example.org/a?b=c', title: 'Poster', tags: 'spring,print' }, { key });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), LINK_FIELDS);
    assert.match(res.body.id, /^[0-9a-f-]{36}$/);
    assert.match(res.body.slug, /^[A-Za-z0-9]{8}$/);
    assert.equal(res.body.shortUrl, `http://sho.rt/s/${res.body.slug}`);
    assert.equal(res.body.qrUrl, `http://sho.rt/q/${res.body.slug}`);
    assert.equal(res.body.environment, 'live');
    assert.equal(res.body.status, 'active');
    assert.equal(res.body.version, 1);
    assert.equal(res.body.trial, false);
    assert.equal(res.body.created_at, h.clock.now());
    assert.equal(res.body.updated_at, h.clock.now());
    assert.equal(res.body.title, 'Poster');
  });

  test('omitted title and tags read as empty strings', async () => {
    const { key } = await h.account();
    const res = await h.createLink({ target: 'https://example.org/' }, { key });
    assert.equal(res.body.title, '');
    assert.equal(res.body.tags, '');
  });

  test('an alias becomes the slug, and a taken alias is 409 request_conflict', async () => {
    const { key } = await h.account();
    const alias = `spring-${crypto.randomBytes(4).toString('hex')}_X`;
    const first = await h.createLink({ target: 'https://example.org/', alias }, { key });
    assert.equal(first.status, 200);
    assert.equal(first.body.slug, alias);
    const other = await h.account();
    const second = await h.createLink({ target: 'https://example.org/2', alias }, { key: other.key });
    assert.equal(second.status, 409);
    assert.deepEqual(second.body, { error: 'request_conflict' });
  });

  test('aliases outside letters, digits, - and _ or longer than 40 are refused', async () => {
    const { key } = await h.account();
    for (const alias of ['has space', 'slash/y', 'dot.x', 'ümlaut', 'a'.repeat(41), '']) {
      const res = await h.createLink({ target: 'https://example.org/', alias }, { key });
      assert.equal(res.status, 400, alias);
      assert.deepEqual(res.body, { error: 'invalid_request' });
    }
    const ok = await h.createLink({ target: 'https://example.org/', alias: `A${crypto.randomBytes(19).toString('hex').slice(0, 39)}` }, { key });
    assert.equal(ok.status, 200);
  });

  test('unsafe or malformed targets are refused with 400', async () => {
    const { key } = await h.account();
    const bad = [
      'javascript:alert(1)',
      'data:text/html,hi',
      'file:///etc/passwd',
      'ftp://example.org/x',
      'https://user:pw@example.org/',
      'https://user@example.org/',
      '//example.org/relative',
      '/relative',
      'example.org',
      'http:example.org',
      'http://sho.rt/s/abc',
      'https://SHO.RT/q/abc',
      'http://sho.rt:8080/s/abc',
      'http://sho.rt/%73/abc',
      'http://sho.rt/%2fs/abc',
      'http://sho.rt./s/abc',
      'http://sho.rt//q/abc',
      `https://example.org/${'x'.repeat(2049 - 'https://example.org/'.length)}`,
      ' https://example.org/',
    ];
    for (const target of bad) {
      const res = await h.createLink({ target }, { key });
      assert.equal(res.status, 400, target);
      assert.deepEqual(res.body, { error: 'invalid_request' }, target);
    }
    const longest = `https://example.org/${'x'.repeat(2048 - 'https://example.org/'.length)}`;
    assert.equal((await h.createLink({ target: longest }, { key })).status, 200);
    assert.equal((await h.createLink({ target: 'http://sho.rt/about' }, { key })).status, 200);
  });

  test('body bounds and unknown fields are refused with 400', async () => {
    const { key } = await h.account();
    const bodies = [
      {},
      { target: 'https://example.org/', title: 'x'.repeat(101) },
      { target: 'https://example.org/', tags: 'x'.repeat(161) },
      { target: 'https://example.org/', maxCredits: 5 },
      { target: 'https://example.org/', maxCredits: '10' },
      { target: 'https://example.org/', extra: 1 },
      { target: 42 },
      [],
      'text',
    ];
    for (const body of bodies) {
      const res = await h.createLink(body, { key });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.body, { error: 'invalid_request' });
    }
  });

  test('the Idempotency-Key header is required and must be a uuid', async () => {
    const { key } = await h.account();
    assert.equal((await h.createLink({ target: 'https://example.org/' }, { key, idempotencyKey: null })).status, 400);
    const res = await h.createLink({ target: 'https://example.org/' }, { key, idempotencyKey: 'not-a-uuid' });
    assert.deepEqual([res.status, res.body], [400, { error: 'invalid_request' }]);
  });

  test('a link read by its owner is the same Link; another account gets 404', async () => {
    const { key } = await h.account();
    const created = await h.createLink({ target: 'https://example.org/r' }, { key });
    const read = await h.request('GET', `/links/${created.body.id}`, { key });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created.body);
    const other = await h.account();
    const foreign = await h.request('GET', `/links/${created.body.id}`, { key: other.key });
    assert.deepEqual([foreign.status, foreign.body], [404, { error: 'not_found' }]);
    const missing = await h.request('GET', `/links/${crypto.randomUUID()}`, { key });
    assert.equal(missing.status, 404);
    const malformed = await h.request('GET', '/links/not-a-uuid', { key });
    assert.deepEqual([malformed.status, malformed.body], [400, { error: 'invalid_request' }]);
  });
});
