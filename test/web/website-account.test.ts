import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { eachDatabase } from '../helpers/databases.js';
import { axeInBothModes, browserSkip, collectCspViolations, screenshot } from './browser.js';
import { linkFromMail } from './mail.js';
import { fetchInPage, newPage, signIn, startWebsite, type WebsiteWorld } from './website-server.js';

const EMAIL = 'ada@example.com';
const PASSWORD = 'violet-tugboat-harmonica-1987';
const CHANGED = 'saffron-glacier-turnip-0311';
const RESET = 'marble-kettle-umbrella-7720';

eachDatabase('a person on the website: sign-up to API keys', (kind) => {
  let world: WebsiteWorld;
  let context: BrowserContext;
  let page: Page;
  let csp: string[];
  let key: string;

  before(async () => {
    if (browserSkip) return;
    world = await startWebsite(kind);
    ({ context, page } = await newPage(world));
    csp = collectCspViolations(page);
  });
  after(async () => {
    await context?.close();
    await world?.close();
  });

  test('the home page says what the service is, makes a trial link without an account, and leads to sign-up', { skip: browserSkip }, async () => {
    await page.goto('/');
    await page.getByRole('heading', { level: 1, name: /short links/i }).waitFor();
    await page.getByLabel('Long URL').fill('https://example.com/spring-poster');
    await page.getByRole('button', { name: 'Shorten' }).click();
    const shortUrl = await page.getByRole('link', { name: /\/s\// }).innerText();
    const visit = await fetch(new URL(new URL(shortUrl).pathname, world.server.baseUrl), { redirect: 'manual' });
    assert.equal(visit.headers.get('location'), 'https://example.com/spring-poster');
    await page.getByRole('link', { name: 'Create an account', exact: true }).click();
    await page.waitForURL('**/app/signup');
  });

  test('signing up sends a verification mail, and its link signs the person in on their links', { skip: browserSkip }, async () => {
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    const link = await linkFromMail(world.mailDir, EMAIL, '/app/verify');
    await page.goto(link);
    await page.waitForURL('**/app/links');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal((await fetchInPage(page, '/api/v1/auth/session')).body.account.email, EMAIL);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create key' }).waitFor();
  });

  test('a key made on the keys page is shown once and works against the API within its scopes', { skip: browserSkip }, async () => {
    await page.getByLabel('Name').fill('newsletter script');
    await page.getByRole('checkbox', { name: 'links:read' }).check();
    await page.getByRole('checkbox', { name: 'links:write' }).uncheck();
    await page.getByLabel('Monthly budget').fill('20');
    await page.getByRole('button', { name: 'Create key' }).click();
    key = await page.getByLabel('API key').inputValue();
    assert.match(key, /^shl_live_/);
    const row = page.getByRole('row', { name: /newsletter script/ });
    await row.waitFor();
    assert.match(await row.innerText(), new RegExp(`${key.slice(-4)}`));
    assert.match(await row.innerText(), /20 credits/);
    const usage = await fetch(`${world.server.baseUrl}/api/v1/account/usage`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(usage.status, 200);
    assert.equal((await usage.json()).keyBudget, 20);
    const write = await fetch(`${world.server.baseUrl}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"target":"https://example.com/a"}',
    });
    assert.equal(write.status, 403);
    assert.deepEqual(await axeInBothModes(page, 'keys with a new key'), []);
    await screenshot(page, 'keys', world.shots);
  });

  test('revoking a key asks first, in a dialog the keyboard can leave, and then the API refuses the key with 401', { skip: browserSkip }, async () => {
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const revoke = page.getByRole('row', { name: /newsletter script/ }).getByRole('button', { name: 'Revoke' });
    await revoke.click();
    const dialog = page.getByRole('dialog', { name: /revoke the key/i });
    await dialog.waitFor();
    assert.deepEqual(await axeInBothModes(page, 'revoke dialog'), []);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await revoke.evaluate((button) => button === document.activeElement), true, 'focus returns to the Revoke button');
    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('row', { name: /newsletter script/ }).waitFor({ state: 'detached' });
    const refused = await fetch(`${world.server.baseUrl}/api/v1/account/usage`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(refused.status, 401);
    assert.deepEqual(await refused.json(), { error: 'api_key_invalid' });
  });

  test('the API reference, linked from the keys page, renders the OpenAPI document for people', { skip: browserSkip }, async () => {
    await page.getByRole('main').getByRole('link', { name: 'API reference' }).first().click();
    await page.waitForURL('**/app/api');
    await page.getByRole('heading', { name: 'POST /links', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Schemas' }).waitFor();
    await page.evaluate(() => document.querySelectorAll('details').forEach((details) => (details.open = true)));
    assert.deepEqual(await axeInBothModes(page, 'API reference'), []);
    await page.goBack();
    await page.getByRole('heading', { name: 'Your keys' }).waitFor();
  });

  test('signing out ends the session; signing in again with the keyboard alone returns to the keys page', { skip: browserSkip }, async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/app/signin');
    assert.equal((await fetchInPage(page, '/api/v1/auth/session')).status, 401);
    await page.goto('/app/keys');
    await page.waitForURL('**/app/signin?next=*');
    // The address changes before the page is drawn, and once drawn the page moves focus to its heading:
    // keys pressed before that move could be cut off by it, so typing starts from there, as a person's would.
    await page.waitForFunction(() => document.activeElement !== null && document.activeElement === document.querySelector('main h1'));
    await tabTo(page, 'Email');
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/app/keys');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  test('a wrong password is explained in plain words', { skip: browserSkip }, async () => {
    const { context: other, page: stranger } = await newPage(world);
    await stranger.goto('/app/signin');
    await stranger.getByLabel('Email').fill(EMAIL);
    await stranger.getByLabel('Password').fill('not-the-password');
    await stranger.getByRole('button', { name: 'Sign in' }).click();
    await stranger
      .getByRole('alert')
      .getByText(/email or the password is not right/)
      .waitFor();
    await other.close();
  });

  test('every page passes axe-core in light and dark mode, fits 360 px, and breaks no Content-Security-Policy rule', { skip: browserSkip }, async () => {
    const found: string[] = [];
    for (const path of ['/app/keys', '/app/billing', '/app/settings', '/', '/app/no-such-page']) {
      await page.goto(path);
      await page.locator('main h1').waitFor();
      await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
      found.push(...(await axeInBothModes(page, path)));
    }
    const { context: narrow, page: phone } = await newPage(world, { width: 360 });
    for (const path of ['/', '/app/signup', '/app/signin', '/app/reset', '/app/verify']) {
      await phone.goto(path);
      await phone.locator('main h1').waitFor();
      found.push(...(await axeInBothModes(phone, path)));
      assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= 360), `${path} fits 360 px`);
    }
    await signIn(phone, EMAIL, PASSWORD);
    for (const path of ['/app/keys', '/app/billing']) {
      await phone.goto(path);
      await phone.locator('main h1').waitFor();
      assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= 360), `${path} fits 360 px`);
    }
    await narrow.close();
    assert.deepEqual(found, []);
    assert.deepEqual(csp, []);
  });

  test('changing the password on the settings page signs out the other sessions', { skip: browserSkip }, async () => {
    const { context: elsewhere, page: other } = await newPage(world);
    await signIn(other, EMAIL, PASSWORD);
    await page.goto('/app/settings');
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill(CHANGED);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();
    assert.equal((await fetchInPage(other, '/api/v1/auth/session')).status, 401);
    assert.equal((await fetchInPage(page, '/api/v1/auth/session')).status, 200);
    await elsewhere.close();
  });

  test('a forgotten password is reset with the link from the mail, which ends every session', { skip: browserSkip }, async () => {
    const { context: fresh, page: forgetful } = await newPage(world);
    await forgetful.goto('/app/signin');
    await forgetful.getByRole('link', { name: 'Forgot your password?' }).click();
    await forgetful.getByLabel('Email').fill(EMAIL);
    await forgetful.getByRole('button', { name: 'Send reset link' }).click();
    await forgetful.getByText(/a mail with a link to choose a new password is on its way/).waitFor();
    await forgetful.goto(await linkFromMail(world.mailDir, EMAIL, '/app/reset'));
    await forgetful.getByLabel('New password').fill(RESET);
    assert.equal(new URL(forgetful.url()).search, '', 'the token leaves the address bar');
    await forgetful.getByRole('button', { name: 'Set new password' }).click();
    await forgetful.getByText(/Your password is changed/).waitFor();
    assert.equal((await fetchInPage(page, '/api/v1/auth/session')).status, 401);
    await signIn(forgetful, EMAIL, RESET);
    await forgetful.goto('/app/settings');
    await forgetful.getByRole('button', { name: 'End all sessions' }).click();
    await forgetful.waitForURL('**/app/signin');
    assert.equal((await fetchInPage(forgetful, '/api/v1/auth/session')).status, 401);
    await fresh.close();
  });
});

/** Presses Tab until the focused control is labelled `label` (bounded): the keyboard path to a field. */
async function tabTo(page: Page, label: string): Promise<void> {
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLInputElement | null;
      return element?.labels?.[0]?.textContent ?? '';
    });
    if (focused === label) return;
  }
  throw new Error(`no control labelled ${label} reached with Tab`);
}
