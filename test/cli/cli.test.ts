import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import crypto from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { postgresSkip, freshDatabase, type DatabaseKind, type TestDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { TEST_PASSWORD_HASHING, failedWithOneLine as failed, printedObject as succeeded, runCli as shortlinks } from '../helpers/processes.js';
import { verifyPassword } from '../../src/accounts/passwords.js';

const email = () => `${crypto.randomUUID()}@example.test`;
const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/** Every value of every api_keys row, as text. */
async function keyTableText(database: TestDatabase): Promise<string> {
  const rows = await database.db.selectFrom('api_keys').selectAll().execute();
  return JSON.stringify(rows);
}

function operatorFlow(kind: DatabaseKind) {
  let database: TestDatabase;
  let h: Harness;
  before(async () => {
    database = await freshDatabase(kind);
    h = await Harness.start(kind, {}, database);
  });
  after(async () => h.close());

  test('accounts create, keys create and credits grant print one JSON object each, and the key works on the API', async () => {
    const address = email();
    const account = succeeded(await shortlinks(database.url, 'accounts', 'create', '--email', address));
    assert.deepEqual(Object.keys(account).sort(), ['email', 'id']);
    assert.match(account.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(account.email, address);

    const key = succeeded(
      await shortlinks(database.url, 'keys', 'create', '--account', account.id, '--scopes', 'links:read,links:write', '--budget', '40', '--name', 'ci'),
    );
    assert.deepEqual(Object.keys(key).sort(), ['budget', 'id', 'key', 'name', 'scopes']);
    assert.match(key.key, /^shl_live_/);
    assert.deepEqual(key.scopes, ['links:read', 'links:write']);
    assert.equal(key.budget, 40);
    assert.equal(key.name, 'ci');

    const created = await h.createLink({ target: 'https://example.org/cli' }, { key: key.key });
    assert.equal(created.status, 200, created.text);
    assert.equal((await h.request('GET', `/links/${created.body.id}`, { key: key.key })).status, 200);

    const stored = await database.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    assert.equal(stored.key_hash, sha256(key.key));
    const text = await keyTableText(database);
    assert.equal(text.includes(key.key), false, 'the key is not stored');
    assert.equal(text.includes(key.key.slice('shl_live_'.length)), false, 'nor its secret part');

    const grant = succeeded(await shortlinks(database.url, 'credits', 'grant', '--account', account.id, '--credits', '30'));
    assert.deepEqual(grant, { account: account.id, purchasedBalance: 30 });
  });

  test('accounts create --password stores only a hash that verifies the password; CLI accounts are verified', async () => {
    const password = `pw-${crypto.randomUUID()}`;
    const account = succeeded(await shortlinks(database.url, 'accounts', 'create', '--email', email(), '--password', password));
    assert.deepEqual(Object.keys(account).sort(), ['email', 'id']);
    const row = await database.db.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow();
    // Hashed at the cost the process was given in PASSWORD_HASH_LOG_N, as the server hashes.
    const logN = TEST_PASSWORD_HASHING.PASSWORD_HASH_LOG_N;
    assert.equal(row.password_hash?.split('$')[1], logN);
    assert.equal(await verifyPassword(password, row.password_hash, Number(logN)), true);
    assert.equal(await verifyPassword(`${password}x`, row.password_hash, Number(logN)), false);
    assert.equal(JSON.stringify(row).includes(password), false, 'the password is not stored');
    assert.notEqual(row.verified_at, null);
    const without = succeeded(await shortlinks(database.url, 'accounts', 'create', '--email', email()));
    const plain = await database.db.selectFrom('accounts').select(['password_hash', 'verified_at']).where('id', '=', without.id).executeTakeFirstOrThrow();
    assert.equal(plain.password_hash, null);
    assert.notEqual(plain.verified_at, null);
  });

  test('a password shorter than 8 characters is refused and no account is made', async () => {
    const address = email();
    failed(await shortlinks(database.url, 'accounts', 'create', '--email', address, '--password', 'short'), 'short password');
    assert.equal(await database.db.selectFrom('accounts').select('id').where('email', '=', address).executeTakeFirst(), undefined);
  });

  test('keys revoke prints {id, revoked: true} and the key is then 401 api_key_invalid', async () => {
    const account = await h.cli('accounts create', { email: email() });
    const key = succeeded(await shortlinks(database.url, 'keys', 'create', '--account', account.id, '--scopes', 'links:read'));
    assert.equal((await h.request('GET', '/links', { key: key.key })).status, 200);
    const revoked = succeeded(await shortlinks(database.url, 'keys', 'revoke', '--id', key.id));
    assert.deepEqual(revoked, { id: key.id, revoked: true });
    const res = await h.request('GET', '/links', { key: key.key });
    assert.deepEqual([res.status, res.body], [401, { error: 'api_key_invalid' }]);
  });

  test('ids are read case-insensitively, also as a urn:uuid, as the API reads them', async () => {
    const account = await h.cli('accounts create', { email: email() });
    const upper = account.id.toUpperCase();
    const key = succeeded(await shortlinks(database.url, 'keys', 'create', '--account', upper, '--scopes', 'links:read'));
    const grant = succeeded(await shortlinks(database.url, 'credits', 'grant', '--account', `urn:uuid:${upper}`, '--credits', '5'));
    assert.deepEqual(grant, { account: account.id, purchasedBalance: 5 });
    const revoked = succeeded(await shortlinks(database.url, 'keys', 'revoke', '--id', key.id.toUpperCase()));
    assert.deepEqual(revoked, { id: key.id, revoked: true });
    assert.equal((await h.request('GET', '/links', { key: key.key })).status, 401);
  });
}

describe('admin CLI (sqlite)', () => {
  operatorFlow('sqlite');
});

describe('admin CLI (postgres)', { skip: postgresSkip }, () => {
  operatorFlow('postgres');
});

describe('admin CLI details (sqlite)', () => {
  let database: TestDatabase;
  let h: Harness;
  let accountId: string;
  before(async () => {
    database = await freshDatabase('sqlite');
    h = await Harness.start('sqlite', {}, database);
    accountId = (await h.cli('accounts create', { email: email() })).id;
  });
  after(async () => h.close());

  test('a key created without --budget has budget null, and name null without --name', async () => {
    const key = succeeded(await shortlinks(database.url, 'keys', 'create', '--account', accountId, '--scopes', 'links:read, qr:read,links:read'));
    assert.equal(key.budget, null);
    assert.equal(key.name, null);
    assert.deepEqual(key.scopes, ['links:read', 'qr:read']);
    const stored = await database.db.selectFrom('api_keys').select(['budget', 'name', 'revoked_at']).where('id', '=', key.id).executeTakeFirstOrThrow();
    assert.deepEqual(stored, { budget: null, name: null, revoked_at: null });
  });

  test('only the SHA-256 of a key is ever written: neither the database file nor its WAL holds the key', async () => {
    const key = succeeded(await shortlinks(database.url, 'keys', 'create', '--account', accountId, '--scopes', 'links:read'));
    const dir = path.dirname(database.url.slice('sqlite:'.length));
    // Read the files from another process: opening and closing the database file in this one would drop
    // the POSIX locks of this process's open SQLite connection (a documented SQLite hazard).
    const scan =
      `const fs=require('fs'),p=require('path');const d=process.argv[1],s=process.argv[2];` +
      `console.log(JSON.stringify(fs.readdirSync(d).filter((f)=>fs.readFileSync(p.join(d,f)).includes(s))))`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', scan, dir, key.key.slice('shl_live_'.length)]);
    assert.deepEqual(JSON.parse(stdout), [], 'files holding the key');
    assert.ok((await keyTableText(database)).includes(sha256(key.key)));
  });

  test('a password given to accounts create is in neither the database file nor its WAL', async () => {
    const password = `clear-${crypto.randomUUID()}`;
    succeeded(await shortlinks(database.url, 'accounts', 'create', '--email', email(), '--password', password));
    const dir = path.dirname(database.url.slice('sqlite:'.length));
    const scan =
      `const fs=require('fs'),p=require('path');const d=process.argv[1],s=process.argv[2];` +
      `console.log(JSON.stringify(fs.readdirSync(d).filter((f)=>fs.readFileSync(p.join(d,f)).includes(s))))`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', scan, dir, password]);
    assert.deepEqual(JSON.parse(stdout), [], 'files holding the password');
  });

  test('credits grant accumulates and writes one ledger row per grant', async () => {
    const account = (await h.cli('accounts create', { email: email() })).id;
    assert.deepEqual(succeeded(await shortlinks(database.url, 'credits', 'grant', '--account', account, '--credits', '100')), {
      account,
      purchasedBalance: 100,
    });
    assert.deepEqual(succeeded(await shortlinks(database.url, 'credits', 'grant', '--account', account, '--credits', '25')), {
      account,
      purchasedBalance: 125,
    });
    const ledger = await database.db
      .selectFrom('credit_ledger')
      .select(['kind', 'amount', 'balance_after'])
      .where('account_id', '=', account)
      .orderBy('balance_after')
      .execute();
    assert.deepEqual(ledger, [
      { kind: 'grant', amount: 100, balance_after: 100 },
      { kind: 'grant', amount: 25, balance_after: 125 },
    ]);
    const row = await database.db.selectFrom('accounts').select('purchased_balance').where('id', '=', account).executeTakeFirstOrThrow();
    assert.equal(row.purchased_balance, 125);
  });

  test('mistakes exit non-zero with one line on stderr and nothing on stdout, and change nothing', async () => {
    const taken = email();
    await h.cli('accounts create', { email: taken });
    const key = await h.cli('keys create', { account: accountId, scopes: 'links:read' });
    const before = await keyTableText(database);
    const cases: [string, string[]][] = [
      ['unknown command', ['accounts', 'delete', '--email', email()]],
      ['unknown option', ['accounts', 'create', '--email', email(), '--admin']],
      ['missing --email', ['accounts', 'create']],
      ['not an email', ['accounts', 'create', '--email', 'not-an-email']],
      ['duplicate email', ['accounts', 'create', '--email', taken]],
      ['duplicate email in other case', ['accounts', 'create', '--email', taken.toUpperCase()]],
      ['unknown scope', ['keys', 'create', '--account', accountId, '--scopes', 'links:read,links:delete']],
      ['unknown account', ['keys', 'create', '--account', crypto.randomUUID(), '--scopes', 'links:read']],
      ['bad budget', ['keys', 'create', '--account', accountId, '--scopes', 'links:read', '--budget', 'lots']],
      ['unknown key', ['keys', 'revoke', '--id', crypto.randomUUID()]],
      ['credits zero', ['credits', 'grant', '--account', accountId, '--credits', '0']],
      ['credits fraction', ['credits', 'grant', '--account', accountId, '--credits', '1.5']],
      ['credits unknown account', ['credits', 'grant', '--account', crypto.randomUUID(), '--credits', '5']],
    ];
    const results = await Promise.all(cases.map(([, args]) => shortlinks(database.url, ...args)));
    cases.forEach(([what], i) => failed(results[i]!, what));
    assert.equal(await keyTableText(database), before, 'no key was created or revoked');
    const balance = await database.db.selectFrom('accounts').select('purchased_balance').where('id', '=', accountId).executeTakeFirstOrThrow();
    assert.equal(balance.purchased_balance, 0);
    const accounts = await database.db.selectFrom('accounts').select('email').where('email', 'in', [taken, taken.toUpperCase()]).execute();
    assert.equal(accounts.length, 1);
    assert.equal((await h.request('GET', '/links', { key: key.key })).status, 200, 'the key was not revoked');
  });

  test('a bad DATABASE_URL is one line on stderr and a non-zero exit', async () => {
    failed(await shortlinks('mysql://nowhere/db', 'accounts', 'create', '--email', email()), 'bad DATABASE_URL');
  });

  test('the CLI works while the server is writing to the same SQLite file', async () => {
    const { key } = await h.account();
    const writes = Array.from({ length: 12 }, (_, i) => h.createLink({ target: `https://example.org/busy/${i}` }, { key }));
    const [account] = await Promise.all([shortlinks(database.url, 'accounts', 'create', '--email', email()), ...writes]);
    const accountId = succeeded(account).id;
    const [newKey, grant] = await Promise.all([
      shortlinks(database.url, 'keys', 'create', '--account', accountId, '--scopes', 'links:write'),
      shortlinks(database.url, 'credits', 'grant', '--account', accountId, '--credits', '7'),
      ...Array.from({ length: 10 }, (_, i) => h.createLink({ target: `https://example.org/busy2/${i}` }, { key })),
    ]);
    assert.equal(succeeded(grant).purchasedBalance, 7);
    const res = await h.createLink({ target: 'https://example.org/after' }, { key: succeeded(newKey).key });
    assert.equal(res.status, 200);
    for (const write of await Promise.all(writes)) assert.equal(write.status, 200);
  });
});
