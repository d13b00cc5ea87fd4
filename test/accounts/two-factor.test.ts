import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { base32, totpCode, totpStep } from '../../src/accounts/totp.js';
import { freshEmail, signIn, STRONG_PASSWORD, websiteRequest } from '../helpers/accounts.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';

describe('TOTP (RFC 6238)', () => {
  test('the codes of RFC 6238’s SHA-1 test vectors, and base32 as authenticator apps read it', () => {
    const secret = base32(Buffer.from('12345678901234567890'));
    assert.equal(secret, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    const vectors: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [seconds, code] of vectors) assert.equal(totpCode(secret, totpStep(seconds * 1000), 8), code, `T=${seconds}`);
  });
});

eachDatabase('two-factor sign-in', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { AUTH_RATE_LIMIT_PER_EMAIL: '8' });
  });
  after(async () => h.close());

  const person = async () => {
    const email = freshEmail();
    await h.cli('accounts create', { email, password: STRONG_PASSWORD });
    return { email, session: (await signIn(h, email, STRONG_PASSWORD)).session! };
  };
  const codeNow = (secret: string) => totpCode(secret, totpStep(h.clock.now()));
  const signInWith = (email: string, code?: string) =>
    h.request('POST', '/auth/signin', {
      body: { email, password: STRONG_PASSWORD, ...(code === undefined ? {} : { code }) },
      headers: { origin: 'http://sho.rt' },
    });
  const cookieOf = (res: { headers: Headers }) => res.headers.getSetCookie().find((c) => c.startsWith('sl_session='));

  async function turnOn(session: string): Promise<{ secret: string; recoveryCodes: string[] }> {
    const setup = await websiteRequest(h, 'POST', '/auth/two-factor/setup', session);
    assert.equal(setup.status, 200, setup.text);
    assert.match(setup.body.secret, /^[A-Z2-7]{32}$/);
    assert.match(setup.body.otpauthUri, new RegExp(`^otpauth://totp/sho\\.rt%3A.*secret=${setup.body.secret}`));
    assert.match(setup.body.qrSvg, /^<svg/);
    assert.deepEqual((await websiteRequest(h, 'POST', '/auth/two-factor/confirm', session, { code: '000000' })).body, { error: 'invalid_request' });
    const confirmed = await websiteRequest(h, 'POST', '/auth/two-factor/confirm', session, { code: codeNow(setup.body.secret) });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.equal(confirmed.body.recoveryCodes.length, 10);
    return { secret: setup.body.secret, recoveryCodes: confirmed.body.recoveryCodes };
  }

  test('after turning it on with a code computed from the shown secret, sign-in asks for a code; a good one signs in once, a wrong or reused one is 401', async () => {
    const { email, session } = await person();
    assert.deepEqual((await websiteRequest(h, 'GET', '/auth/two-factor', session)).body, { enabled: false, recoveryCodesLeft: 0 });
    const { secret } = await turnOn(session);
    assert.deepEqual((await websiteRequest(h, 'GET', '/auth/two-factor', session)).body, { enabled: true, recoveryCodesLeft: 10 });
    h.clock.advance(30_000);
    const asked = await signInWith(email);
    assert.deepEqual([asked.status, asked.body, cookieOf(asked)], [200, { status: 'code_required' }, undefined]);
    const wrong = await signInWith(email, '123456');
    assert.deepEqual([wrong.status, wrong.body, cookieOf(wrong)], [401, { error: 'api_key_invalid' }, undefined]);
    const good = await signInWith(email, codeNow(secret));
    assert.equal(good.status, 200, good.text);
    assert.ok(cookieOf(good));
    assert.equal((await signInWith(email, codeNow(secret))).status, 401, 'a code is good once');
    const badPassword = await h.request('POST', '/auth/signin', {
      body: { email, password: 'not-the-password-at-all', code: codeNow(secret) },
      headers: { origin: 'http://sho.rt' },
    });
    assert.equal(badPassword.status, 401);
    assert.equal((await websiteRequest(h, 'POST', '/auth/two-factor/setup', session)).status, 409, 'on already');
  });

  test('a recovery code signs in once, with or without its dashes; turning it off asks for a code', async () => {
    const { email, session } = await person();
    const { secret, recoveryCodes } = await turnOn(session);
    const [first, second] = recoveryCodes as [string, string];
    assert.equal((await signInWith(email, first)).status, 200);
    assert.equal((await signInWith(email, first)).status, 401, 'used');
    assert.equal((await signInWith(email, second.replaceAll('-', '').toUpperCase())).status, 200);
    assert.equal((await websiteRequest(h, 'GET', '/auth/two-factor', session)).body.recoveryCodesLeft, 8);
    assert.equal((await websiteRequest(h, 'POST', '/auth/two-factor/disable', session, {})).status, 400);
    assert.equal((await websiteRequest(h, 'POST', '/auth/two-factor/disable', session, { code: '000000' })).status, 400);
    h.clock.advance(30_000);
    assert.equal((await websiteRequest(h, 'POST', '/auth/two-factor/disable', session, { code: codeNow(secret) })).status, 204);
    const plain = await signInWith(email);
    assert.equal(plain.status, 200);
    assert.ok(cookieOf(plain), 'no code needed any more');
  });

  test('codes are rate-limited per address: guessing stops with 429', async () => {
    const { email, session } = await person();
    await turnOn(session);
    let limited: { status: number; headers: Headers } | undefined;
    for (let i = 0; i < 12 && limited === undefined; i++) {
      const res = await signInWith(email, String(100000 + i));
      if (res.status === 429) limited = res;
      else assert.equal(res.status, 401);
    }
    assert.ok(limited, 'refused before twelve guesses');
    assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
  });
});
