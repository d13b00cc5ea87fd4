import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { SESSION_IDLE_MS } from '../../src/accounts/sessions.js';
import { STRONG_PASSWORD, freshEmail, linkToken, mailDir, sessionCookie, signIn, signUpVerified, waitForMail, websiteRequest } from '../helpers/accounts.js';

eachDatabase('sign-up, verification and sign-in', (kind) => {
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

  test('sign-up mails a verification link to MAIL_DIR whose token signs the person in', async () => {
    const email = freshEmail();
    const signup = await h.request('POST', '/auth/signup', { body: { email, password: STRONG_PASSWORD }, headers: origin });
    assert.equal(signup.status, 202);
    assert.deepEqual(signup.body, { status: 'verification_sent' });
    const received = await waitForMail(mail.dir, email);
    const { page, token } = linkToken(received);
    assert.equal(page, 'http://sho.rt/app/verify');
    const verified = await h.request('POST', '/auth/verify', { body: { token }, headers: origin });
    assert.equal(verified.status, 200);
    assert.equal(verified.body.account.email, email);
    const session = await websiteRequest(h, 'GET', '/auth/session', sessionCookie(verified)!.token);
    assert.deepEqual(session.body, verified.body);
    assert.equal((await h.request('POST', '/auth/verify', { body: { token }, headers: origin })).status, 400, 'a link works once');
  });

  test('the session cookie is HttpOnly, SameSite=Lax, on the whole site, and not Secure over plain HTTP', async () => {
    const { email } = await signUpVerified(h, mail.dir);
    const cookie = sessionCookie(await signIn(h, email, STRONG_PASSWORD))!;
    assert.match(cookie.token, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(cookie.attributes.includes('HttpOnly'));
    assert.ok(cookie.attributes.includes('SameSite=Lax'));
    assert.ok(cookie.attributes.includes('Path=/'));
    assert.ok(!cookie.attributes.includes('Secure'));
  });

  test('an account cannot sign in before its address is verified, and the answer is that of a wrong password', async () => {
    const email = freshEmail();
    await h.request('POST', '/auth/signup', { body: { email, password: STRONG_PASSWORD }, headers: origin });
    await waitForMail(mail.dir, email);
    const unverified = await signIn(h, email, STRONG_PASSWORD);
    assert.equal(unverified.status, 401);
    assert.deepEqual(unverified.body, { error: 'api_key_invalid' });
    assert.equal(unverified.session, undefined);
  });

  test('unknown address and wrong password get the same 401 and body', async () => {
    const { email } = await signUpVerified(h, mail.dir);
    const wrong = await signIn(h, email, 'not-the-password-at-all');
    const unknown = await signIn(h, freshEmail(), STRONG_PASSWORD);
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, wrong.status);
    assert.equal(unknown.text, wrong.text);
    assert.equal(unknown.headers.get('set-cookie'), null);
  });

  test('sign-up with an address that has an account answers exactly like a new one, and mails its owner instead', async () => {
    const { email } = await signUpVerified(h, mail.dir);
    const again = await h.request('POST', '/auth/signup', { body: { email, password: STRONG_PASSWORD }, headers: origin });
    const fresh = await h.request('POST', '/auth/signup', { body: { email: freshEmail(), password: STRONG_PASSWORD }, headers: origin });
    assert.equal(again.status, fresh.status);
    assert.equal(again.text, fresh.text);
    const notice = await waitForMail(mail.dir, email, 2);
    assert.equal(notice.subject, 'You already have an account');
    assert.doesNotMatch(notice.text, /token=/);
  });

  test('a password reset request answers the same for an unknown address', async () => {
    const { email } = await signUpVerified(h, mail.dir);
    const known = await h.request('POST', '/auth/reset', { body: { email }, headers: origin });
    const unknown = await h.request('POST', '/auth/reset', { body: { email: freshEmail() }, headers: origin });
    assert.equal(known.status, 202);
    assert.deepEqual(known.body, { status: 'reset_sent' });
    assert.equal(unknown.status, known.status);
    assert.equal(unknown.text, known.text);
  });

  test('a weak password or a malformed address is refused at sign-up with 400', async () => {
    for (const body of [
      { email: freshEmail(), password: 'password123' },
      { email: freshEmail(), password: 'short' },
      { email: 'not-an-address', password: STRONG_PASSWORD },
    ]) {
      const response = await h.request('POST', '/auth/signup', { body, headers: origin });
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(response.body, { error: 'invalid_request' });
    }
  });

  test('a password built from the address itself is weak', async () => {
    const response = await h.request('POST', '/auth/signup', {
      body: { email: 'rosalind.franklin@example.test', password: 'rosalindfranklin' },
      headers: origin,
    });
    assert.equal(response.status, 400);
  });

  test('GET /site says sign-up is open and how to get credits', async () => {
    const site = await h.request('GET', '/site');
    assert.equal(site.status, 200);
    assert.equal(site.body.signup, 'open');
    assert.equal(typeof site.body.creditsHelp, 'string');
    assert.ok(site.body.creditsHelp.length > 0);
  });
});

eachDatabase('sign-up closed', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { SIGNUP: 'closed', CREDITS_HELP: 'Write to billing@example.test.' });
  });
  after(() => h.close());

  test('sign-up is 404 when SIGNUP=closed, and GET /site says so with the operator’s text', async () => {
    const signup = await h.request('POST', '/auth/signup', { body: { email: freshEmail(), password: STRONG_PASSWORD }, headers: { origin: 'http://sho.rt' } });
    assert.equal(signup.status, 404);
    assert.deepEqual(signup.body, { error: 'not_found' });
    assert.deepEqual((await h.request('GET', '/site')).body, { signup: 'closed', creditsHelp: 'Write to billing@example.test.' });
  });

  test('over HTTPS the session cookie is Secure', async () => {
    const secure = await Harness.start(kind, { PUBLIC_URL: 'https://sho.rt' });
    try {
      const email = freshEmail();
      await secure.cli('accounts create', { email, password: STRONG_PASSWORD });
      const cookie = sessionCookie(await signIn(secure, email, STRONG_PASSWORD))!;
      assert.ok(cookie.attributes.includes('Secure'));
      assert.ok(cookie.attributes.includes('HttpOnly'));
    } finally {
      await secure.close();
    }
  });

  test('an account the operator made with a password signs in at once', async () => {
    const email = freshEmail();
    await h.cli('accounts create', { email, password: STRONG_PASSWORD });
    const signedIn = await signIn(h, email, STRONG_PASSWORD);
    assert.equal(signedIn.status, 200);
    assert.ok(signedIn.session);
  });
});

eachDatabase('session expiry over HTTP', (kind) => {
  let h: Harness;
  const mail = mailDir();
  before(async () => {
    h = await Harness.start(kind, { MAIL_DIR: mail.dir });
  });
  after(async () => {
    await h.close();
    mail.remove();
  });

  test('a session left unused for seven days is signed out', async () => {
    const { token } = await signUpVerified(h, mail.dir);
    h.clock.advance(SESSION_IDLE_MS - 60_000);
    assert.equal((await websiteRequest(h, 'GET', '/auth/session', token)).status, 200);
    h.clock.advance(SESSION_IDLE_MS);
    assert.equal((await websiteRequest(h, 'GET', '/auth/session', token)).status, 401);
  });

  test('a session in daily use still ends thirty days after sign-in', async () => {
    const { token } = await signUpVerified(h, mail.dir);
    for (let day = 1; day < 30; day++) {
      h.clock.advance(86_400_000);
      assert.equal((await websiteRequest(h, 'GET', '/auth/session', token)).status, 200, `day ${day}`);
    }
    h.clock.advance(86_400_000);
    assert.equal((await websiteRequest(h, 'GET', '/auth/session', token)).status, 401);
  });
});
