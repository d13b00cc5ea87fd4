import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { commands } from '../../src/cli/commands.js';
import { PASSWORD_HASH_LOG_N, hashPassword, passwordProblem, verifyPassword } from '../../src/accounts/passwords.js';
import { loadConfig } from '../../src/platform/config.js';
import { STRONG_PASSWORD, freshEmail, mailDir, signIn, signUpVerified } from '../helpers/accounts.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

/** The cheapest accepted cost: what the rules below do not depend on. */
const CHEAP = PASSWORD_HASH_LOG_N.min;

test('a hash verifies its own password and no other', async () => {
  const stored = await hashPassword('correct horse battery staple', CHEAP);
  assert.equal(await verifyPassword('correct horse battery staple', stored, CHEAP), true);
  assert.equal(await verifyPassword('correct horse battery stapler', stored, CHEAP), false);
  assert.equal(stored.includes('correct horse'), false);
});

test('a hash at the default cost records scrypt at N = 2^17, r = 8, p = 1 with a 16-byte salt and a 64-byte key', async () => {
  const [scheme, logN, r, p, salt, key] = (await hashPassword('a long enough password', PASSWORD_HASH_LOG_N.default)).split('$');
  assert.deepEqual([scheme, logN, r, p], ['scrypt', '17', '8', '1']);
  assert.equal(Buffer.from(salt!, 'base64url').length, 16);
  assert.equal(Buffer.from(key!, 'base64url').length, 64);
});

test('two hashes of one password differ, and each verifies it', async () => {
  const [a, b] = await Promise.all([hashPassword('same password', CHEAP), hashPassword('same password', CHEAP)]);
  assert.notEqual(a, b);
  assert.deepEqual(await Promise.all([verifyPassword('same password', a, CHEAP), verifyPassword('same password', b, CHEAP)]), [true, true]);
});

test('without a stored hash, or with a malformed or tampered one, nothing verifies', async () => {
  const stored = await hashPassword('password of mine', CHEAP);
  assert.equal(await verifyPassword('password of mine', null, CHEAP), false);
  assert.equal(await verifyPassword('password of mine', undefined, CHEAP), false);
  assert.equal(await verifyPassword('password of mine', 'not-a-hash', CHEAP), false);
  // Costs the module would never write (here N = 2^13, 2^21 and 2^30) are refused, not computed.
  for (const logN of [13, 21, 30]) assert.equal(await verifyPassword('password of mine', stored.replace('scrypt$14$', `scrypt$${logN}$`), CHEAP), false);
});

test('the same password typed in another Unicode form still verifies', async () => {
  const stored = await hashPassword('caf\u00e9 au lait', CHEAP);
  assert.equal(await verifyPassword('cafe\u0301 au lait', stored, CHEAP), true);
});

test('a password has 8 to 256 characters', () => {
  assert.match(passwordProblem('short') ?? '', /at least 8/);
  assert.equal(passwordProblem('eight ch'), undefined);
  assert.equal(passwordProblem('x'.repeat(256)), undefined);
  assert.match(passwordProblem('x'.repeat(257)) ?? '', /at most 256/);
});

eachDatabase('the configured hashing cost', (kind) => {
  let h: Harness;
  const mail = mailDir();
  before(async () => {
    // The test helpers set PASSWORD_HASH_LOG_N=14.
    h = await Harness.start(kind, { MAIL_DIR: mail.dir });
  });
  after(async () => {
    await h.close();
    mail.remove();
  });

  const storedHash = async (email: string, on = h): Promise<string> =>
    (await on.database.db.selectFrom('accounts').select('password_hash').where('email', '=', email).executeTakeFirstOrThrow()).password_hash!;
  /** The operator's `accounts create --password`, run with the configuration these variables give. */
  const operatorAccount = async (env: Record<string, string>): Promise<string> => {
    const email = freshEmail();
    const config = loadConfig({ DATABASE_URL: h.database.url, ...env });
    await commands['accounts create']!.run({ email, password: STRONG_PASSWORD }, { database: h.database, config, now: Date.now() });
    return email;
  };

  test('the operator hashes at N = 2^17 by default and at PASSWORD_HASH_LOG_N when it is set', async () => {
    assert.match(await storedHash(await operatorAccount({})), /^scrypt\$17\$/);
    assert.match(await storedHash(await operatorAccount({ PASSWORD_HASH_LOG_N: '14' })), /^scrypt\$14\$/);
  });

  test('a server set to 14 hashes its sign-ups at 14 and still signs in a password hashed at 17', async () => {
    const { email: signedUp } = await signUpVerified(h, mail.dir);
    assert.match(await storedHash(signedUp), /^scrypt\$14\$/);
    const older = await operatorAccount({});
    assert.match(await storedHash(older), /^scrypt\$17\$/);
    assert.equal((await signIn(h, older, STRONG_PASSWORD)).status, 200);
    assert.equal((await signIn(h, older, `${STRONG_PASSWORD}!`)).status, 401);
    assert.equal((await signIn(h, freshEmail(), STRONG_PASSWORD)).status, 401);
  });

  test('a server at the default cost hashes website sign-ups at 17, and they sign in', async () => {
    const server = await Harness.start(kind, { MAIL_DIR: mail.dir, PASSWORD_HASH_LOG_N: String(PASSWORD_HASH_LOG_N.default) });
    try {
      const { email } = await signUpVerified(server, mail.dir);
      assert.match(await storedHash(email, server), /^scrypt\$17\$/);
      assert.equal((await signIn(server, email, STRONG_PASSWORD)).status, 200);
    } finally {
      await server.close();
    }
  });
});
