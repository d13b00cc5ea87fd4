import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { commands } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/platform/config.js';
import { freshDatabase, postgresSkip, type TestDatabase } from '../helpers/databases.js';
import { startServer, type ServerProcess } from '../helpers/processes.js';

/**
 * Two server processes on one PostgreSQL database spend from one balance: the guarantees must hold
 * across processes, not only inside one.
 */
describe('two server processes sharing one PostgreSQL database', { skip: postgresSkip }, () => {
  let database: TestDatabase;
  const servers: ServerProcess[] = [];
  let key: string;
  let accountId: string;

  before(async () => {
    database = await freshDatabase('postgres');
    const env = { DATABASE_URL: database.url, FREE_LINKS_PER_MONTH: '0', RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_ACCOUNT: '1000000' };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
    const context = { database, config: loadConfig({}), now: Date.now() };
    accountId = ((await commands['accounts create']!.run({ email: 'two@example.test' }, context)) as { id: string }).id;
    key = ((await commands['keys create']!.run({ account: accountId, scopes: 'links:read,links:write,credits:spend' }, context)) as { key: string }).key;
    await commands['credits grant']!.run({ account: accountId, credits: '205' }, context);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await database.drop();
  });

  const post = (server: ServerProcess, path: string, body: object, idem = crypto.randomUUID()) =>
    fetch(`${server.baseUrl}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idem },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { id?: string; error?: string } }));

  test('parallel extra links and pack purchases from both processes never overdraw', async () => {
    const requests = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? post(servers[i % 2]!, '/links/capacity', { maxCredits: 50 })
        : post(servers[i % 2]!, '/links', { target: `https://example.org/${i}`, maxCredits: 10 }),
    );
    const results = await Promise.all(requests);
    assert.ok(
      results.every((r) => r.status === 200 || r.body.error === 'credits_required'),
      JSON.stringify(results.map((r) => r.body)),
    );
    const account = await database.db
      .selectFrom('accounts')
      .select(['purchased_balance', 'reserved_credits'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const links = await database.db.selectFrom('links').select('id').where('account_id', '=', accountId).execute();
    const packs = await database.db.selectFrom('capacity_packs').select('id').where('account_id', '=', accountId).execute();
    assert.equal(account.reserved_credits, 0);
    assert.ok(account.purchased_balance >= 0 && account.purchased_balance < 10, `balance ${account.purchased_balance}`);
    assert.equal(205 - links.length * 10 - packs.length * 50, account.purchased_balance);
    const ledger = await database.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.sum<number>('amount').as('s'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(ledger.s), account.purchased_balance);
  });

  test('one Idempotency-Key sent to both processes at once creates at most one link', async () => {
    await commands['credits grant']!.run({ account: accountId, credits: '100' }, { database, config: loadConfig({}), now: Date.now() });
    const before = (await database.db.selectFrom('links').select('id').where('account_id', '=', accountId).execute()).length;
    const idem = crypto.randomUUID();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(servers[i % 2]!, '/links', { target: 'https://example.org/once', maxCredits: 10 }, idem)),
    );
    const ok = results.filter((r) => r.status === 200);
    assert.ok(ok.length >= 1 && results.every((r) => r.status === 200 || r.body.error === 'request_conflict'), JSON.stringify(results));
    assert.equal(new Set(ok.map((r) => r.body.id)).size, 1);
    const afterCount = (await database.db.selectFrom('links').select('id').where('account_id', '=', accountId).execute()).length;
    assert.equal(afterCount, before + 1);
    const account = await database.db.selectFrom('accounts').select('purchased_balance').where('id', '=', accountId).executeTakeFirstOrThrow();
    const ledger = await database.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.sum<number>('amount').as('s'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(ledger.s), account.purchased_balance);
  });
});
