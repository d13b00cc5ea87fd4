import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { UNAVAILABLE_RETRY_SECONDS } from '../../src/platform/http/error-handling.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

/**
 * Randomness is the fake here: bytes that are always zero make every random slug the same, so the
 * second link without an alias finds each of its candidate slugs taken.
 */
eachDatabase('random slugs used up', (kind) => {
  let h: Harness;
  let key: string;

  before(async () => {
    h = await Harness.start(kind, {}, undefined, (size) => Buffer.alloc(size));
    ({ key } = await h.account('links:read,links:write'));
  });
  after(async () => h.close());

  test('a link whose random slugs are all taken is 503 links_unavailable with Retry-After, and nothing is created', async () => {
    const first = await h.createLink({ target: 'https://example.org/first' }, { key });
    assert.equal(first.status, 200);
    const res = await h.createLink({ target: 'https://example.org/second' }, { key });
    assert.deepEqual([res.status, res.body], [503, { error: 'links_unavailable' }]);
    assert.equal(res.headers.get('retry-after'), String(UNAVAILABLE_RETRY_SECONDS));
    assert.equal(await h.linkCount(), 1);
  });

  test('a trial link whose random slugs are all taken is told to retry in seconds, not at the trial reset at midnight', async () => {
    const res = await h.createLink({ target: 'https://example.org/trial' });
    assert.deepEqual([res.status, res.body], [503, { error: 'links_unavailable' }]);
    assert.equal(res.headers.get('retry-after'), String(UNAVAILABLE_RETRY_SECONDS));
  });
});
