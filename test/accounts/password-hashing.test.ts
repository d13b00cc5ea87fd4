import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, passwordProblem, verifyPassword } from '../../src/accounts/passwords.js';

test('a hash verifies its own password and no other', async () => {
  const stored = await hashPassword('correct horse battery staple');
  assert.equal(await verifyPassword('correct horse battery staple', stored), true);
  assert.equal(await verifyPassword('correct horse battery stapler', stored), false);
  assert.equal(stored.includes('correct horse'), false);
});

test('a hash records scrypt at N = 2^17, r = 8, p = 1 with a 16-byte salt and a 64-byte key', async () => {
  const [scheme, logN, r, p, salt, key] = (await hashPassword('a long enough password')).split('$');
  assert.deepEqual([scheme, logN, r, p], ['scrypt', '17', '8', '1']);
  assert.equal(Buffer.from(salt!, 'base64url').length, 16);
  assert.equal(Buffer.from(key!, 'base64url').length, 64);
});

test('two hashes of one password differ, and each verifies it', async () => {
  const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
  assert.notEqual(a, b);
  assert.deepEqual(await Promise.all([verifyPassword('same password', a), verifyPassword('same password', b)]), [true, true]);
});

test('without a stored hash, or with a malformed or tampered one, nothing verifies', async () => {
  const stored = await hashPassword('password of mine');
  assert.equal(await verifyPassword('password of mine', null), false);
  assert.equal(await verifyPassword('password of mine', 'not-a-hash'), false);
  // Parameters the module would never write (here N = 2^30) are refused, not computed.
  assert.equal(await verifyPassword('password of mine', stored.replace('scrypt$17$', 'scrypt$30$')), false);
});

test('the same password typed in another Unicode form still verifies', async () => {
  const stored = await hashPassword('caf\u00e9 au lait');
  assert.equal(await verifyPassword('cafe\u0301 au lait', stored), true);
});

test('a password has 8 to 256 characters', () => {
  assert.match(passwordProblem('short') ?? '', /at least 8/);
  assert.equal(passwordProblem('eight ch'), undefined);
  assert.equal(passwordProblem('x'.repeat(256)), undefined);
  assert.match(passwordProblem('x'.repeat(257)) ?? '', /at most 256/);
});
