import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { STRONG_PASSWORD, freshEmail, signIn } from '../helpers/accounts.js';

eachDatabase('a session cookie sent twice', (kind) => {
  let h: Harness;
  let first: string;
  let second: string;

  /** An account made by the operator with a password, signed in: its session token. */
  const signedIn = async (): Promise<string> => {
    const email = freshEmail();
    await h.cli('accounts create', { email, password: STRONG_PASSWORD });
    const answer = await signIn(h, email, STRONG_PASSWORD);
    assert.equal(answer.status, 200, answer.text);
    return answer.session!;
  };
  const session = (cookie: string) => h.request('GET', '/auth/session', { headers: { cookie } });

  before(async () => {
    h = await Harness.start(kind);
    first = await signedIn();
    second = await signedIn();
  });
  after(async () => h.close());

  test('one valid session cookie signs the request in', async () => {
    assert.equal((await session(`sl_session=${first}`)).status, 200);
    assert.equal((await session(`theme=dark; sl_session=${second}; lang=en`)).status, 200);
  });

  test('two valid session cookies, in either order, are answered as signed out', async () => {
    for (const cookie of [
      `sl_session=${first}; sl_session=${second}`,
      `sl_session=${second}; sl_session=${first}`,
      `sl_session=${first}; sl_session=${first}`,
    ]) {
      const answer = await session(cookie);
      assert.deepEqual([answer.status, answer.body], [401, { error: 'api_key_invalid' }], cookie);
    }
  });

  test('a valid and an invalid session cookie, in either order, are answered as signed out', async () => {
    const invalid = 'A'.repeat(43);
    for (const cookie of [`sl_session=${first}; sl_session=${invalid}`, `sl_session=${invalid}; sl_session=${first}`, `sl_session=${first};sl_session=`]) {
      const answer = await session(cookie);
      assert.deepEqual([answer.status, answer.body], [401, { error: 'api_key_invalid' }], cookie);
    }
  });

  test('the cookie repeated in two Cookie header lines is answered as signed out too', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const url = new URL(`${h.baseUrl}/api/v1/auth/session`);
      // Raw headers: node sends both lines, and the server joins them into one Cookie value.
      const headers = ['host', url.host, 'cookie', `sl_session=${first}`, 'cookie', `sl_session=${second}`];
      http
        .request(url, { headers }, (res) => {
          res.resume();
          resolve(res.statusCode);
        })
        .on('error', reject)
        .end();
    });
    assert.equal(status, 401);
  });

  test('signing out with the cookie twice ends neither session', async () => {
    const origin = new URL(h.config.publicUrl).origin;
    const out = await h.request('POST', '/auth/signout', { body: {}, headers: { cookie: `sl_session=${first}; sl_session=${second}`, origin } });
    assert.equal(out.status, 204);
    assert.equal((await session(`sl_session=${first}`)).status, 200);
    assert.equal((await session(`sl_session=${second}`)).status, 200);
  });

  test('a key sent beside two session cookies is judged as the key alone', async () => {
    const { key } = await h.account();
    const answer = await h.request('GET', '/links', { key, headers: { cookie: `sl_session=${first}; sl_session=${second}` } });
    assert.equal(answer.status, 200);
  });
});
