import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { STRONG_PASSWORD, freshEmail, mailDir, signIn, signUpVerified, websiteRequest } from '../helpers/accounts.js';

eachDatabase('CSRF checks on requests made with a session', (kind) => {
  let h: Harness;
  let session: string;
  const mail = mailDir();

  before(async () => {
    h = await Harness.start(kind, { MAIL_DIR: mail.dir });
    session = (await signUpVerified(h, mail.dir)).token;
  });
  after(async () => {
    await h.close();
    mail.remove();
  });

  const createKey = (headers: Record<string, string>, rawBody?: string) =>
    h.request('POST', '/keys', {
      rawBody: rawBody ?? JSON.stringify({ name: 'ci', scopes: ['links:read'], budget: null }),
      headers: { cookie: `sl_session=${session}`, 'content-type': 'application/json', ...headers },
    });

  test('the website’s own JSON request with its origin is accepted', async () => {
    assert.equal((await createKey({ origin: 'http://sho.rt' })).status, 200);
    assert.equal((await createKey({ 'sec-fetch-site': 'same-origin' })).status, 200);
  });

  test('a request from another site is refused with 403 api_scope_required', async () => {
    const crossSite: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-site', origin: 'http://sub.sho.rt' },
    ];
    for (const headers of crossSite) {
      const response = await createKey(headers);
      assert.equal(response.status, 403, JSON.stringify(headers));
      assert.deepEqual(response.body, { error: 'api_scope_required' });
    }
  });

  test('a request that shows no origin at all is refused', async () => {
    assert.equal((await createKey({})).status, 403);
  });

  test('a form post is refused even from the same origin, before its body is read', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const response = await createKey({ origin: 'http://sho.rt', 'content-type': type }, 'name=ci&scopes=links:read');
      assert.equal(response.status, 403, type);
      assert.deepEqual(response.body, { error: 'api_scope_required' });
    }
  });

  test('the public API with a session is checked too: a cross-site link creation is refused', async () => {
    const headers = { cookie: `sl_session=${session}`, origin: 'https://evil.example', 'idempotency-key': crypto.randomUUID() };
    const response = await h.request('POST', '/links', { body: { target: 'https://example.com/' }, headers });
    assert.equal(response.status, 403);
  });

  test('sign-in from another site is refused, so no one can sign a visitor in to their own account', async () => {
    const response = await h.request('POST', '/auth/signin', {
      body: { email: freshEmail(), password: STRONG_PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(response.status, 403);
  });

  test('reading with a session needs no origin: GET is safe', async () => {
    const response = await h.request('GET', '/keys', { headers: { cookie: `sl_session=${session}` } });
    assert.equal(response.status, 200);
  });

  test('an API key is not subject to the check: it is never sent by a browser on its own', async () => {
    const { key } = await h.account();
    const response = await h.createLink({ target: 'https://example.com/' }, { key, headers: { origin: 'https://evil.example' } });
    assert.equal(response.status, 200);
  });

  test('a cookie that names no session is 401, never a trial link', async () => {
    const response = await h.createLink({ target: 'https://example.com/' }, { headers: { cookie: `sl_session=${'x'.repeat(43)}`, origin: 'http://sho.rt' } });
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, { error: 'api_key_invalid' });
  });

  test('sign-out of this session ends it and clears the cookie', async () => {
    const { token } = await signUpVerified(h, mail.dir);
    const out = await websiteRequest(h, 'POST', '/auth/signout', token);
    assert.equal(out.status, 204);
    assert.match(out.headers.get('set-cookie') ?? '', /^sl_session=;.*Expires=Thu, 01 Jan 1970/);
    assert.equal((await websiteRequest(h, 'GET', '/auth/session', token)).status, 401);
  });
});

eachDatabase('rate limits on sign-in', (kind) => {
  let h: Harness;
  const mail = mailDir();

  before(async () => {
    h = await Harness.start(kind, { MAIL_DIR: mail.dir, AUTH_RATE_LIMIT_PER_EMAIL: '3', AUTH_RATE_LIMIT_PER_IP: '9' });
  });
  after(async () => {
    await h.close();
    mail.remove();
  });

  test('sign-in attempts for one address are limited, with Retry-After, whether or not it has an account', async () => {
    const { email } = await signUpVerified(h, mail.dir);
    const unknown = freshEmail();
    for (let attempt = 0; attempt < 3; attempt++) {
      assert.equal((await signIn(h, email, 'wrong-password-guess')).status, 401);
      assert.equal((await signIn(h, unknown, 'wrong-password-guess')).status, 401);
    }
    const known = await signIn(h, email, STRONG_PASSWORD);
    const other = await signIn(h, unknown, STRONG_PASSWORD);
    assert.equal(known.status, 429, 'even the right password waits');
    assert.deepEqual(known.body, { error: 'rate_limited' });
    assert.ok(Number(known.headers.get('retry-after')) >= 1);
    assert.equal(other.status, 429);
    assert.equal(other.text, known.text);
  });

  test('sign-in attempts from one network are limited across addresses, and the limit comes back with time', async () => {
    h.clock.advance(60_000);
    for (let attempt = 0; attempt < 9; attempt++) assert.equal((await signIn(h, freshEmail(), 'wrong-password-guess')).status, 401);
    assert.equal((await signIn(h, freshEmail(), 'wrong-password-guess')).status, 429);
    h.clock.advance(60_000);
    assert.equal((await signIn(h, freshEmail(), 'wrong-password-guess')).status, 401);
  });
});
