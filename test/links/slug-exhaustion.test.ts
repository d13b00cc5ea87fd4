import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { commands } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/platform/config.js';
import { UNAVAILABLE_RETRY_SECONDS } from '../../src/platform/http/error-handling.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';
import { TestClock } from '../helpers/harness.js';

/**
 * Randomness is the fake here: bytes that are always zero make every random slug the same, so the
 * second link without an alias finds each of its candidate slugs taken.
 */
eachDatabase('random slugs used up', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let baseUrl: string;
  let key: string;

  before(async () => {
    database = await freshDatabase(kind);
    const config = loadConfig({
      PUBLIC_URL: 'http://sho.rt',
      RATE_LIMIT_PER_IP: '1000000',
      RATE_LIMIT_PER_ACCOUNT: '1000000',
      SHED_EVENT_LOOP_DELAY_MS: '0',
      SHED_DATABASE_LATENCY_MS: '0',
    });
    const clock = new TestClock();
    app = await buildApp({ config, database, now: clock.now, randomBytes: (size) => Buffer.alloc(size) });
    const context = { database, config, now: clock.now() };
    const account = (await commands['accounts create']!.run({ email: `${crypto.randomUUID()}@example.test` }, context)) as { id: string };
    key = ((await commands['keys create']!.run({ account: account.id, scopes: 'links:read,links:write' }, context)) as { key: string }).key;
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await app.close();
    await database.drop();
  });

  const createLink = (target: string) =>
    fetch(`${baseUrl}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': crypto.randomUUID(), 'content-type': 'application/json' },
      body: JSON.stringify({ target }),
    });

  test('a link whose random slugs are all taken is 503 links_unavailable with Retry-After, and nothing is created', async () => {
    const first = await createLink('https://example.org/first');
    assert.equal(first.status, 200);
    const res = await createLink('https://example.org/second');
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), { error: 'links_unavailable' });
    assert.equal(res.headers.get('retry-after'), String(UNAVAILABLE_RETRY_SECONDS));
    const { n } = await database.db
      .selectFrom('links')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(n), 1);
  });

  test('a trial link whose random slugs are all taken is told to retry in seconds, not at the trial reset at midnight', async () => {
    const res = await fetch(`${baseUrl}/api/v1/links`, {
      method: 'POST',
      headers: { 'idempotency-key': crypto.randomUUID(), 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'https://example.org/trial' }),
    });
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), { error: 'links_unavailable' });
    assert.equal(res.headers.get('retry-after'), String(UNAVAILABLE_RETRY_SECONDS));
  });
});
