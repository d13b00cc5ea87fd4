import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { eachDatabase } from '../helpers/databases.js';
import { axeInBothModes, browserSkip, screenshot } from './browser.js';
import { linkFromMail } from './mail.js';
import { admin, createLinkWithKey, fetchInPage, newPage, signIn, startWebsite, type WebsiteWorld } from './website-server.js';

const EMAIL = 'grace@example.com';
const PASSWORD = 'walnut-ferry-lantern-4471';
const NEW_PASSWORD = 'copper-meadow-violin-2208';

/** Progress fades in: checked half-faded, its contrast would fail for a state nobody reads. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('.busy') === null);
}

/** The API as the page's session calls it (same-origin JSON, as the website's own requests). */
async function postInPage(page: Page, path: string, body: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ path, body }) => {
      const response = await fetch(path, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    { path, body },
  );
}

/** Which field an error is said at: the input is marked invalid and described by the error's text. */
async function fieldError(page: Page, label: string): Promise<string> {
  const input = page.getByLabel(label, { exact: true });
  assert.equal(await input.getAttribute('aria-invalid'), 'true', `${label} is marked invalid`);
  const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).innerText()));
  return texts.join(' ');
}

eachDatabase('a person’s first hour on the website', (kind) => {
  let world: WebsiteWorld;
  let context: BrowserContext;
  let page: Page;
  const consoleErrors: string[] = [];
  const violations: string[] = [];
  let pausedSlug = '';
  let linkId = '';

  const check = async (label: string) => {
    await settled(page);
    violations.push(...(await axeInBothModes(page, label)));
  };
  /** Both widths, light and dark, each looked at once. */
  const shots = async (name: string) => {
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 800 });
      await settled(page);
      violations.push(...(await axeInBothModes(page, `${name} at ${width} px`)));
      await screenshot(page, `${name}-${width}`, world.shots);
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, `${name}-${width}-dark`, world.shots);
      await page.emulateMedia({ colorScheme: 'light' });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  };

  before(async () => {
    if (browserSkip) return;
    world = await startWebsite(kind, { FREE_LINKS_PER_MONTH: '6' });
    ({ context, page } = await newPage(world, { width: 1280 }));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
    if (process.env.KEEP_SHOTS) console.log(`screenshots: ${world.shots}`);
  });
  after(async () => {
    if (process.env.KEEP_SHOTS && world) fs.cpSync(world.shots, process.env.KEEP_SHOTS, { recursive: true });
    await context?.close();
    await world?.close();
  });

  test('signed-out pages log no console error (no 401 for the session)', { skip: browserSkip }, async () => {
    for (const path of ['/', '/app/signin', '/app/signup', '/report', '/app/reset', '/app/api']) {
      await page.goto(path);
      await page.locator('main h1').waitFor();
      await settled(page);
    }
    assert.deepEqual(consoleErrors, []);
  });

  test('an address without https:// makes a trial link, listed after a reload with its QR download and its 7 days', { skip: browserSkip }, async () => {
    await page.goto('/');
    await page.getByLabel('Long URL').fill('example.org/menu');
    await page.getByRole('button', { name: 'Shorten' }).click();
    await page.getByRole('link', { name: /\/s\// }).first().waitFor();
    await page.reload();
    const list = page.getByRole('region', { name: 'Your trial links' });
    await list.getByRole('link', { name: /\/s\/\w+$/ }).waitFor();
    assert.match(await list.innerText(), /After 7 days a trial link stops/);
    assert.match(await list.innerText(), /example\.org\/menu/);
    assert.match(await list.innerText(), /https:\/\/example\.org\/menu/);
    const download = list.getByRole('link', { name: 'Download QR code' });
    assert.match((await download.getAttribute('download')) ?? '', /^qr-\w+\.svg$/);
    await shots('home-trials');
    assert.deepEqual(consoleErrors, []);
  });

  test('a weak password is said at the Password field; sign-up keeps the trial link and lands on the links', { skip: browserSkip }, async () => {
    await page.goto('/app/signup');
    const keep = page.getByRole('checkbox', { name: 'Keep my trial links' });
    assert.equal(await keep.isChecked(), true);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('password1234');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('.field-error').waitFor();
    assert.match(await fieldError(page, 'Password'), /too easy to guess/);
    await shots('signup-weak-password');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await page.goto(await linkFromMail(world.mailDir, EMAIL, '/app/verify'));
    await page.waitForURL('**/app/links');
    await page.getByText('1 trial link is now yours, with no expiry').waitFor();
    const row = page.locator('table.links-table tbody tr');
    await row.first().waitFor();
    assert.equal(await row.count(), 1);
    await page.goto('/');
    assert.equal(await page.getByRole('region', { name: 'Your trial links' }).count(), 0);
  });

  test('the links list filters by tag, sorts, keeps its state in the address for reload and Back, and exports CSV', { skip: browserSkip }, async () => {
    await page.goto('/app/links');
    for (const [title, tags] of [
      ['Lobby poster', 'poster, print'],
      ['Menu card', 'print'],
      ['Newsletter', 'mail'],
    ] as const) {
      const made = await postInPage(page, '/api/v1/links', { target: `https://example.org/${title.replace(' ', '-')}`, title, tags });
      assert.equal(made.status, 200);
      linkId = made.body.id;
    }
    await page.reload();
    await page.getByRole('combobox', { name: 'Tag' }).selectOption('print');
    await page.getByText(/Links 1 to 2 tagged print, newest first/).waitFor();
    await page.getByRole('combobox', { name: 'Sort' }).selectOption('title');
    await page.getByText(/Links 1 to 2 tagged print, by title/).waitFor();
    assert.match(page.url(), /tag=print/);
    assert.match(page.url(), /sort=title/);
    const rows = page.locator('table.links-table tbody tr');
    assert.match(await rows.first().innerText(), /^\s*Lobby poster\s+\/\w+/);
    await page.reload();
    await page.getByText(/Links 1 to 2 tagged print, by title/).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Tag' }).inputValue(), 'print');
    await page.getByLabel('Search links').fill('menu');
    await page.getByText(/Links 1 to 1 matching “menu” tagged print/).waitFor();
    await page.waitForURL(/q=menu/);
    await page.reload();
    assert.equal(await page.getByLabel('Search links').inputValue(), 'menu');
    await page.getByText(/Links 1 to 1 matching “menu”/).waitFor();
    await page.goBack();
    await page.getByText(/Links 1 to 2 tagged print, newest first/).waitFor();
    assert.equal(await page.getByLabel('Search links').inputValue(), '');
    await page.goto('/app/links');
    await page.getByText(/Links 1 to 4, newest first/).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export links' }).click()]);
    const csv = fs.readFileSync(await download.path(), 'utf8');
    assert.equal(download.suggestedFilename(), 'links.csv');
    assert.equal(csv.trim().split('\r\n').length, 5);
    assert.match(csv, /^title,slug,short_url/);
    await shots('links');
    await page.setViewportSize({ width: 360, height: 740 });
    const card = await rows.first().boundingBox();
    assert.ok(card && card.height < 200, `a link's card is ${card?.height} px tall`);
    const header = await page.locator('header.site-header').boundingBox();
    assert.ok(header && header.height < 80, `the header is ${header?.height} px tall`);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('new link: one nav item current, https:// added, UTM fields, a taken alias said at Alias with a free one', { skip: browserSkip }, async () => {
    await page.goto('/app/links/new');
    await page.getByRole('button', { name: 'Create link' }).waitFor();
    const current = await page.locator('nav[aria-label="Main"] [aria-current="page"]').allInnerTexts();
    assert.deepEqual(current, ['New link']);
    // The allowance as the server counts it (FREE_LINKS_PER_MONTH=6 here), not a number of the website's.
    await page.getByText(/^\d of 6 free links left this month\.$/).waitFor();
    const taken = (await postInPage(page, '/api/v1/links', { target: 'https://example.org/x', alias: `menu-${kind}` })).body.slug;
    await page.getByLabel('Destination URL').fill('example.org/spring?lang=en&utm_source=old&q=a%20b');
    await page.getByLabel('Alias').fill(taken);
    await page.getByLabel('UTM source').fill('poster');
    await page.getByLabel('UTM medium').fill('print');
    await page.getByLabel('UTM campaign').fill('spring');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.locator('.field-error').waitFor();
    assert.match(await fieldError(page, 'Alias'), new RegExp(`The alias ${taken} is taken\\. ${taken}-2 is free`));
    assert.equal(await page.getByLabel('Destination URL').inputValue(), 'https://example.org/spring?lang=en&utm_source=old&q=a%20b');
    await shots('new-link-alias-taken');
    await page.getByRole('button', { name: `Use ${taken}-2` }).click();
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL(/\/app\/links\/[0-9a-f-]{36}\?created=1$/);
    // The field's utm_source replaces the one in the address; the other parameters stay as written.
    await page.getByText('https://example.org/spring?lang=en&q=a%20b&utm_source=poster&utm_medium=print&utm_campaign=spring').first().waitFor();
    const pageCurrent = await page.locator('nav[aria-label="Main"] [aria-current="page"]').allInnerTexts();
    assert.deepEqual(pageCurrent, ['Links']);
    await shots('link-page');
  });

  test(
    'past the free links the price is asked before anything is sent (no 402 in the console), and the payment dialog keeps focus inside while open',
    { skip: browserSkip },
    async () => {
      await page.goto('/app/links/new');
      consoleErrors.length = 0;
      await page.getByLabel('Destination URL').fill('example.org/one-more');
      await page.getByRole('button', { name: 'Create link' }).click();
      const dialog = page.getByRole('dialog', { name: 'Pay for this link?' });
      await dialog.waitFor();
      assert.match(await dialog.innerText(), /The 6 free links of this month are used up\./);
      assert.deepEqual(consoleErrors, []);
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab');
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement?.closest('dialog') !== null), true, `focus left the dialog after ${i + 1} steps`);
      }
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    },
  );

  test('an edit survives a session that ends: it is kept, the sign-in says so, and the draft comes back', { skip: browserSkip }, async () => {
    await page.goto(`/app/links/${linkId}`);
    await page.getByLabel('Title').fill('Newsletter, June');
    await context.clearCookies();
    // Whichever request meets the ended session first, the Save or the page's own refresh of its
    // figures, leads to sign-in; the draft must come back either way.
    const signin = page.waitForURL('**/app/signin?next=*');
    await Promise.race([
      page
        .getByRole('button', { name: 'Save', exact: true })
        .click({ timeout: 5_000 })
        .catch(() => undefined),
      signin,
    ]);
    await signin;
    await page.getByText('Your session ended').waitFor();
    await shots('signin-session-ended');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/app/links/${linkId}`);
    await page.getByText(/Your unsaved edit from before you signed in again is back/).waitFor();
    assert.equal(await page.getByLabel('Title').inputValue(), 'Newsletter, June');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Saved\./).waitFor();
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Newsletter, June');
  });

  test('paused, missing and expired links answer branded pages with “Report this link”, prefilled on the report page', { skip: browserSkip }, async () => {
    const account = await admin(world, 'accounts list', { search: EMAIL });
    await admin(world, 'credits grant', { account: account.accounts[0].id, credits: '1000' });
    const made = await postInPage(page, '/api/v1/links', { target: 'https://example.org/paused', maxCredits: 10 });
    assert.equal(made.status, 200);
    pausedSlug = made.body.slug;
    const patched = await page.evaluate(
      async ({ id }) =>
        (
          await fetch(`/api/v1/links/${id}`, {
            method: 'PATCH',
            credentials: 'same-origin',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ version: 1, status: 'paused' }),
          })
        ).status,
      { id: made.body.id },
    );
    assert.equal(patched, 200);
    const visitor = await context.browser()!.newContext({ baseURL: world.server.baseUrl });
    const stranger = await visitor.newPage();
    for (const [path, status, title] of [
      [`/s/${pausedSlug}`, 404, 'Link paused'],
      ['/s/NoSuchLink9', 404, 'Link not found'],
    ] as const) {
      const response = await stranger.goto(path);
      assert.equal(response?.status(), status);
      await stranger.getByRole('heading', { name: title }).waitFor();
      for (const width of [1280, 360]) {
        await stranger.setViewportSize({ width, height: 700 });
        violations.push(...(await axeInBothModes(stranger, `${title} at ${width} px`)));
        await screenshot(stranger, `${title.replace(' ', '-').toLowerCase()}-${width}`, world.shots);
      }
    }
    await stranger.goto(`/s/${pausedSlug}`);
    await stranger.getByRole('link', { name: 'Report this link' }).click();
    await stranger.waitForURL('**/report?url=*');
    assert.equal(await stranger.getByLabel('Short link').inputValue(), made.body.shortUrl);
    await visitor.close();
  });

  test('a reset link used once says so when opened again', { skip: browserSkip }, async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto('/app/reset');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText(/is on its way/).waitFor();
    const link = await linkFromMail(world.mailDir, EMAIL, '/app/reset');
    await page.goto(link);
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText(/Your password is changed/).waitFor();
    await page.goto(link);
    await page.getByText(/This reset link was used already/).waitFor();
    await shots('reset-used');
    await signIn(page, EMAIL, NEW_PASSWORD);
    await page.waitForURL('**/app/links');
  });

  test('“Capacity pack bought” goes once the pack is refunded', { skip: browserSkip }, async () => {
    await page.goto('/app/billing');
    await page.getByRole('button', { name: 'Buy capacity pack' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm purchase' }).click();
    await page.getByText(/Capacity pack bought/).waitFor();
    await page.getByRole('button', { name: 'Refund' }).first().click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /Refund/ })
      .click();
    await page
      .getByRole('dialog')
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
    await page.waitForFunction(() => !document.body.innerText.includes('Capacity pack bought'));
    await check('billing after a refund');
  });

  test('trial links kept past the free links: the price is asked before any claim, no console error, kept once confirmed', { skip: browserSkip }, async () => {
    const email = 'ada@example.com';
    const account = await admin(world, 'accounts create', { email, password: PASSWORD });
    await admin(world, 'credits grant', { account: account.id, credits: '100' });
    const { key } = await admin(world, 'keys create', { account: account.id, scopes: 'links:read,links:write' });
    for (let i = 0; i < 5; i++) await createLinkWithKey(world, key, { target: `https://example.org/ada-${i}` });
    const { context: other, page: tab } = await newPage(world, { width: 1280 });
    const errors: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${tab.url()}: ${message.text()}`);
    });
    try {
      await tab.goto('/');
      for (const name of ['flyer', 'sticker']) {
        await tab.getByLabel('Long URL').fill(`example.org/${name}`);
        await tab.getByRole('button', { name: 'Shorten' }).click();
        await tab.getByRole('link', { name: 'See this link’s page with its visits' }).waitFor();
        // Listed after a reload: then the next one is made from a page showing no result yet.
        await tab.reload();
        await tab.getByRole('region', { name: 'Your trial links' }).getByText(`https://example.org/${name}`).waitFor();
      }
      // One free link is left for two trial links: one is kept at once, the other waits for a yes.
      await tab.goto('/app/signin');
      assert.equal(await tab.getByRole('checkbox', { name: 'Keep my trial links' }).isChecked(), true);
      await tab.getByLabel('Email').fill(email);
      await tab.getByLabel('Password').fill(PASSWORD);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.waitForURL('**/app/links');
      await tab.getByText('1 trial link is now yours, with no expiry').waitFor();
      await tab.getByText(/1 trial link was not kept yet/).waitFor();
      assert.equal((await fetchInPage(tab, '/api/v1/account/usage')).body.purchasedBalance, 100);
      await tab.getByRole('button', { name: 'Keep for 10 credits' }).click();
      const dialog = tab.getByRole('dialog', { name: 'Pay to keep your trial links?' });
      await dialog.waitFor();
      assert.match(await dialog.innerText(), /The 6 free links of this month are used up\. This link costs 10 credits/);
      await screenshot(tab, 'keep-trials-pay', world.shots);
      await dialog.getByRole('button', { name: 'Spend 10 credits' }).click();
      await tab.getByText('2 trial links are now yours, with no expiry').waitFor();
      const usage = (await fetchInPage(tab, '/api/v1/account/usage')).body;
      assert.deepEqual([usage.purchasedBalance, usage.links.total], [90, 7]);
      await settled(tab);
      violations.push(...(await axeInBothModes(tab, 'links after keeping paid trial links')));
      assert.deepEqual(errors, []);
    } finally {
      await other.close();
    }
  });

  test('no signed-in page logs a console error, and every page passed axe in both modes', { skip: browserSkip }, async () => {
    // Failed requests after a person's own mistake (a weak password, an unpaid link, a session that
    // ended) were logged by the browser above, as it logs any failed load; pages that load log nothing.
    consoleErrors.length = 0;
    // The preview of a short link (`+`) is one of the service's own pages, not the website's: it carries its icon inline.
    for (const path of [
      `/s/${pausedSlug}+`,
      '/',
      '/app/links',
      '/app/links/new',
      `/app/links/${linkId}`,
      '/app/keys',
      '/app/billing',
      '/app/settings',
      '/report',
    ]) {
      await page.goto(path);
      await page.locator('main h1').waitFor();
      await check(path);
    }
    assert.deepEqual(consoleErrors, []);
    assert.deepEqual(violations, []);
  });
});
