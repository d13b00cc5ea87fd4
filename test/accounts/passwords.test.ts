import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import {
  OTHER_STRONG_PASSWORD,
  STRONG_PASSWORD,
  freshEmail,
  linkToken,
  mailDir,
  signIn,
  signUpVerified,
  waitForMail,
  websiteRequest,
} from '../helpers/accounts.js';

eachDatabase('password change and reset', (kind) => {
  let h: Harness;
  const mail = mailDir();
  const origin = { origin: 'http://sho.rt' };

  before(async () => {
    h = await Harness.start(kind, { MAIL_DIR: mail.dir });
  });
  after(async () => {
    await h.close();
    mail.remove();
  });

  test('changing the password keeps this session, ends the others, and the new password signs in', async () => {
    const { email, token: here } = await signUpVerified(h, mail.dir);
    const elsewhere = (await signIn(h, email, STRONG_PASSWORD)).session!;
    const changed = await websiteRequest(h, 'POST', '/auth/password', here, { currentPassword: STRONG_PASSWORD, newPassword: OTHER_STRONG_PASSWORD });
    assert.equal(changed.status, 204);
    assert.equal((await websiteRequest(h, 'GET', '/auth/session', here)).status, 200);
    assert.equal((await websiteRequest(h, 'GET', '/auth/session', elsewhere)).status, 401);
    assert.equal((await signIn(h, email, STRONG_PASSWORD)).status, 401);
    assert.equal((await signIn(h, email, OTHER_STRONG_PASSWORD)).status, 200);
  });

  test('a wrong current password is 401 and a weak new one 400; neither changes anything', async () => {
    const { email, token } = await signUpVerified(h, mail.dir);
    const wrong = await websiteRequest(h, 'POST', '/auth/password', token, { currentPassword: 'not-it-at-all', newPassword: OTHER_STRONG_PASSWORD });
    assert.equal(wrong.status, 401);
    const weak = await websiteRequest(h, 'POST', '/auth/password', token, { currentPassword: STRONG_PASSWORD, newPassword: 'password1' });
    assert.equal(weak.status, 400);
    assert.equal((await signIn(h, email, STRONG_PASSWORD)).status, 200);
  });

  test('the password cannot be changed with an API key', async () => {
    const { key } = await h.account();
    const response = await h.request('POST', '/auth/password', {
      key,
      body: { currentPassword: STRONG_PASSWORD, newPassword: OTHER_STRONG_PASSWORD },
      headers: origin,
    });
    assert.equal(response.status, 403);
    assert.deepEqual(response.body, { error: 'api_scope_required' });
  });

  test('a reset by mail sets a new password and ends every session of the account', async () => {
    const { email, token: session } = await signUpVerified(h, mail.dir);
    assert.equal((await h.request('POST', '/auth/reset', { body: { email }, headers: origin })).status, 202);
    const { page, token } = linkToken(await waitForMail(mail.dir, email, 2));
    assert.equal(page, 'http://sho.rt/app/reset');
    const weak = await h.request('POST', '/auth/reset/confirm', { body: { token, password: 'password1' }, headers: origin });
    assert.equal(weak.status, 400, 'a weak password is refused and the link still works');
    const reset = await h.request('POST', '/auth/reset/confirm', { body: { token, password: OTHER_STRONG_PASSWORD }, headers: origin });
    assert.equal(reset.status, 204);
    assert.equal((await websiteRequest(h, 'GET', '/auth/session', session)).status, 401);
    assert.equal((await signIn(h, email, OTHER_STRONG_PASSWORD)).status, 200);
    const again = await h.request('POST', '/auth/reset/confirm', { body: { token, password: STRONG_PASSWORD }, headers: origin });
    assert.equal(again.status, 400, 'a reset link works once');
  });

  test('sign-out everywhere ends every session of the account', async () => {
    const { email, token: one } = await signUpVerified(h, mail.dir);
    const two = (await signIn(h, email, STRONG_PASSWORD)).session!;
    assert.equal((await websiteRequest(h, 'POST', '/auth/signout-all', one)).status, 204);
    assert.equal((await websiteRequest(h, 'GET', '/auth/session', one)).status, 401);
    assert.equal((await websiteRequest(h, 'GET', '/auth/session', two)).status, 401);
  });

  test('the CLI prints one-time verification and reset links that work like the mailed ones', async () => {
    const email = freshEmail();
    await h.cli('accounts create', { email });
    await assert.rejects(h.cli('accounts verify-link', { email }), /verified already/);
    const printed = await h.cli('accounts reset-link', { email });
    assert.equal(printed.email, email);
    const token = new URL(printed.url).searchParams.get('token')!;
    assert.equal((await h.request('POST', '/auth/reset/confirm', { body: { token, password: STRONG_PASSWORD }, headers: origin })).status, 204);
    assert.equal((await signIn(h, email, STRONG_PASSWORD)).status, 200);
  });

  test('a verification link from the CLI verifies an account that signed up', async () => {
    const email = freshEmail();
    await h.request('POST', '/auth/signup', { body: { email, password: STRONG_PASSWORD }, headers: origin });
    const printed = await h.cli('accounts verify-link', { email });
    const token = new URL(printed.url).searchParams.get('token')!;
    assert.equal((await h.request('POST', '/auth/verify', { body: { token }, headers: origin })).status, 200);
    assert.equal((await signIn(h, email, STRONG_PASSWORD)).status, 200);
  });

  test('signing up again before verifying: only the newest link works, and it sets the password sent with it', async () => {
    const email = freshEmail();
    await h.request('POST', '/auth/signup', { body: { email, password: STRONG_PASSWORD }, headers: origin });
    const first = linkToken(await waitForMail(mail.dir, email, 1));
    await h.request('POST', '/auth/signup', { body: { email, password: OTHER_STRONG_PASSWORD }, headers: origin });
    const second = linkToken(await waitForMail(mail.dir, email, 2));
    assert.equal((await h.request('POST', '/auth/verify', { body: { token: first.token }, headers: origin })).status, 400);
    assert.equal((await h.request('POST', '/auth/verify', { body: { token: second.token }, headers: origin })).status, 200);
    assert.equal((await signIn(h, email, STRONG_PASSWORD)).status, 401);
    assert.equal((await signIn(h, email, OTHER_STRONG_PASSWORD)).status, 200);
  });
});
