import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { openDatabase } from '../../src/platform/database/database.js';
import { eachDatabase } from '../helpers/databases.js';
import { axeInBothModes, browserSkip, collectCspViolations, screenshot } from './browser.js';
import { admin, fetchInPage, newPage, signIn, startWebsite, type WebsiteWorld } from './website-server.js';

const EMAIL = 'ada@example.com';
const PASSWORD = 'violet-harbour-kettle-9034';
const CAMPAIGNS = [
  ['Spring newsletter', 'mail'],
  ['Lobby poster', 'poster, print'],
  ['Conference badge', 'event'],
  ['Menu card', 'print'],
  ['Product sheet', 'sales'],
  ['Job advert', 'jobs'],
  ['Podcast notes', 'audio'],
  ['Shop window poster', 'poster, shop'],
] as const;
const campaign = (n: number) => CAMPAIGNS[n % CAMPAIGNS.length]!;

/** Progress fades in: checked half-faded, its contrast would fail for a state nobody reads. */
async function axeWhenSettled(page: Page, label: string): Promise<string[]> {
  await page.waitForFunction(() => document.querySelector('.busy') === null);
  return axeInBothModes(page, label);
}

eachDatabase('a person on the website: links', (kind) => {
  let world: WebsiteWorld;
  let context: BrowserContext;
  let page: Page;
  let csp: string[];
  let apiKey: string;
  let linkPath: string;
  let trialPath: string;
  const violations: string[] = [];

  /** The public API with the key the CLI made, as a program would call it. */
  const createWithKey = async (n: number, maxCredits = 0) => {
    const response = await fetch(new URL('/api/v1/links', world.server.baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({
        target: `https://example.org/${campaign(n)[0].toLowerCase().replaceAll(' ', '-')}/${n}`,
        title: `${campaign(n)[0]} ${n}`,
        tags: campaign(n)[1],
        ...(maxCredits && { maxCredits }),
      }),
    });
    assert.equal(response.status, 200, await response.text());
  };
  const linkCount = async (): Promise<number> => {
    let count = 0;
    for (let offset = 0; ; offset += 50) {
      const { body } = await fetchInPage(page, `/api/v1/links?offset=${offset}`);
      count += body.links.length;
      if (!body.hasMore) return count;
    }
  };
  /** The status a fresh visitor's request to a short URL gets, without following it. */
  const visit = async (shortUrl: string) => (await fetch(new URL(new URL(shortUrl).pathname, world.server.baseUrl), { redirect: 'manual' })).status;

  before(async () => {
    if (browserSkip) return;
    world = await startWebsite(kind);
    const account = await admin(world, 'accounts create', { email: EMAIL, password: PASSWORD });
    await admin(world, 'credits grant', { account: account.id, credits: '300' });
    apiKey = (await admin(world, 'keys create', { account: account.id, scopes: 'links:read,links:write,credits:spend', name: 'batch' })).key;
    ({ context, page } = await newPage(world));
    csp = collectCspViolations(page);
  });
  after(async () => {
    await context?.close();
    await world?.close();
  });

  test('a trial link made on the home page shows its URLs and QR code, and its page opens again after a reload', { skip: browserSkip }, async () => {
    await page.goto('/');
    await page.getByLabel('Long URL').fill('https://example.com/open-day');
    await page.getByRole('button', { name: 'Shorten' }).click();
    const qr = page.getByRole('img', { name: /QR code that opens .*\/q\// });
    await qr.waitFor();
    await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('img.qr-image')?.naturalWidth ?? 0) > 0);
    await page.getByRole('button', { name: 'Copy short URL' }).waitFor();
    await page.getByRole('button', { name: 'Copy QR URL' }).waitFor();
    violations.push(...(await axeWhenSettled(page, 'home with a trial link')));
    await page.setViewportSize({ width: 360, height: 800 });
    violations.push(...(await axeWhenSettled(page, 'home with a trial link at 360 px')));
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.getByRole('link', { name: /this link’s page/ }).click();
    await page.waitForURL(/\/app\/trial\/[0-9a-f-]{36}$/);
    await page.reload();
    await page.getByRole('heading', { name: 'QR code' }).waitFor();
    await page.getByRole('heading', { name: 'Analytics' }).waitFor();
    assert.match(await page.locator('main').innerText(), /Short URL\s+http.*\/s\/\S+[\s\S]*https:\/\/example\.com\/open-day/);
    assert.doesNotMatch(page.url(), /token/i);
    violations.push(...(await axeWhenSettled(page, 'trial link page')));
  });

  test('a trial link’s page says so once the link has expired', { skip: browserSkip }, async () => {
    trialPath = new URL(page.url()).pathname;
    const id = trialPath.split('/').pop()!;
    const database = await openDatabase(world.databaseUrl);
    try {
      await database.db
        .updateTable('links')
        .set({ expires_at: Date.now() - 1000 })
        .where('id', '=', id)
        .execute();
    } finally {
      await database.close();
    }
    await page.reload();
    await page.getByText(/This trial link has expired/).waitFor();
    violations.push(...(await axeWhenSettled(page, 'expired trial link page')));
  });

  test('a signed-in person makes a link with a double click, and its short URL redirects in another browser', { skip: browserSkip }, async () => {
    await signIn(page, EMAIL, PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'New link' }).click();
    await page.getByText('25 of 25 free links left this month.').waitFor();
    await page.getByLabel('Destination URL').fill('https://example.com/spring-poster');
    await page.getByLabel('Alias').fill('spring-poster');
    await page.getByLabel('Title').fill('Spring poster');
    await page.getByLabel('Tags').fill('poster, spring');
    violations.push(...(await axeWhenSettled(page, 'new link')));
    await page.getByRole('button', { name: 'Create link' }).dblclick();
    await page.waitForURL(/\/app\/links\/[0-9a-f-]{36}\?created=1$/);
    linkPath = new URL(page.url()).pathname;
    await page.getByText('Your link is ready').waitFor();
    assert.equal(await linkCount(), 1);
    const shortUrl = await page.getByRole('link', { name: /\/s\/spring-poster$/ }).innerText();
    const visitor = await world.browser.newContext();
    try {
      const other = await visitor.newPage();
      // The destination itself cannot load (no network here): the browser asking for it shows the redirect was followed.
      const followed = other.waitForRequest('https://example.com/spring-poster');
      await other.goto(shortUrl).catch(() => undefined);
      await followed;
    } finally {
      await visitor.close();
    }
    violations.push(...(await axeWhenSettled(page, 'link page')));
  });

  test('past the 25 free links a new link shows its price, and is made only once the person agrees to pay', { skip: browserSkip }, async () => {
    for (let n = 2; n <= 25; n++) await createWithKey(n);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'New link' }).click();
    await page.getByText(/free links of this month are used up: the next link costs 10 credits/).waitFor();
    await page.getByLabel('Destination URL').fill('https://example.com/summer-flyer');
    await page.getByLabel('Title').fill('Summer flyer');
    await page.getByRole('button', { name: 'Create link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Pay for this link?' });
    await dialog.getByText(/costs 10 credits from your purchased balance \(300 available\)/).waitFor();
    violations.push(...(await axeWhenSettled(page, 'pay for a link')));
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await linkCount(), 25);
    await page.getByRole('button', { name: 'Create link' }).click();
    await dialog.getByRole('button', { name: 'Spend 10 credits' }).dblclick();
    await page.waitForURL(/\/app\/links\/[0-9a-f-]{36}\?created=1$/);
    assert.equal(await linkCount(), 26);
    const { body } = await fetchInPage(page, '/api/v1/account/credits');
    assert.equal(body.purchasedBalance, 290);
  });

  test('the links page draws 50 rows and measures the drawing, pages to older links and searches', { skip: browserSkip }, async () => {
    for (let n = 27; n <= 51; n++) await createWithKey(n, 10);
    await page.getByRole('link', { name: 'Links', exact: true }).click();
    const rows = page.locator('table.links-table tbody tr');
    await page.waitForFunction(() => document.querySelectorAll('table.links-table tbody tr').length === 50);
    const rendered = await page.evaluate(() => performance.getEntriesByName('links:render').map((entry) => entry.duration));
    assert.equal(rendered.length, 1);
    // Printed, not asserted: render times on a shared machine vary too much for a test to hold them to a budget.
    console.log(`links page: 50 rows drawn ${rendered[0]!.toFixed(1)} ms after the data arrived (${kind})`);
    const newest = rows.first();
    const tagWords = campaign(51)[1].split(', ').join('\\s+');
    assert.match(await newest.innerText(), new RegExp(`^\\s*${campaign(51)[0]} 51\\s+/\\S+[\\s\\S]*${tagWords}\\s+\\d+\\s+Active`));
    await newest.getByRole('button', { name: /Copy short URL of/ }).waitFor();
    await newest.getByRole('button', { name: /Copy QR URL of/ }).waitFor();
    await page.getByRole('columnheader', { name: /^Created \(/ }).waitFor();
    // A table at 1,200 px: each cell of a row is a cell of it, as tall as the row (no cell takes a style of its own).
    const boxes = await newest
      .locator('td')
      .evaluateAll((cells) => cells.map((cell) => `${Math.round(cell.getBoundingClientRect().top)} ${Math.round(cell.getBoundingClientRect().height)}`));
    assert.equal(new Set(boxes).size, 1, `the row's cells line up: ${boxes.join(', ')}`);
    violations.push(...(await axeWhenSettled(page, 'links')));
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Links 51 to 51, newest first').waitFor();
    assert.match(await rows.first().innerText(), /spring-poster/);
    await page.getByLabel('Search links').fill('SUMMER');
    await page.getByText('Links 1 to 1 matching “SUMMER”, newest first').waitFor();
    assert.match(await rows.first().innerText(), /Summer flyer/);
    await page.getByLabel('Search links').fill('poster');
    await page.getByText(/Links 1 to \d+ matching “poster”/).waitFor();
    await screenshot(page, 'links', world.shots);
  });

  test('two tabs edit the same link: the stale one is shown what changed and reapplies its edit', { skip: browserSkip }, async () => {
    const other = await context.newPage();
    other.setDefaultTimeout(20_000);
    await Promise.all([page.goto(linkPath), other.goto(linkPath)]);
    await page.getByLabel('Title').fill('Spring poster, big');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Saved\./).waitFor();
    await other.getByLabel('Tags').fill('poster, spring, lobby');
    await other.getByRole('button', { name: 'Save', exact: true }).click();
    const conflict = other.getByRole('region', { name: 'This link changed while you were editing it' });
    await conflict.waitFor();
    assert.match(await conflict.getByRole('row', { name: /Title/ }).innerText(), /Title\s+Spring poster\s+Spring poster, big\s+unchanged/);
    violations.push(...(await axeWhenSettled(other, 'stale edit')));
    await conflict.getByRole('button', { name: 'Reapply my edit' }).click();
    await other.getByText(/^Saved\./).waitFor();
    await other.close();
    const { body } = await fetchInPage(page, `/api/v1${linkPath.replace('/app', '')}`);
    assert.deepEqual([body.title, body.tags], ['Spring poster, big', 'poster, spring, lobby']);
  });

  test('pausing a link stops its redirect, and resuming starts it again', { skip: browserSkip }, async () => {
    await page.reload();
    const shortUrl = await page.getByRole('link', { name: /\/s\/spring-poster$/ }).innerText();
    assert.equal(await visit(shortUrl), 302);
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    assert.equal(await visit(shortUrl), 404);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    assert.equal(await visit(shortUrl), 302);
  });

  test('a destination the service refuses is said at the Destination URL field, when making a link and when editing one', { skip: browserSkip }, async () => {
    await page.goto(linkPath);
    // One of the service's own short links: a link to it would loop.
    const shortUrl = await page.getByRole('link', { name: /\/s\/spring-poster$/ }).innerText();
    const saidAtField = async () => {
      const field = page.getByLabel('Destination URL');
      await page.locator('.field-error').waitFor();
      assert.equal(await field.getAttribute('aria-invalid'), 'true');
      const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ');
      assert.match(await page.locator(`[id="${ids[0]}"]`).innerText(), /cannot be a destination/);
      assert.equal(await page.getByText('Check the fields').count(), 0);
    };
    await page.getByLabel('Destination URL').fill(shortUrl);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await saidAtField();
    violations.push(...(await axeWhenSettled(page, 'destination refused on the link page')));
    await page.getByLabel('Destination URL').fill('https://example.com/spring-poster-2');
    assert.equal(await page.locator('.field-error').count(), 0, 'the error goes once the address changes');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Saved\./).waitFor();
    await page.goto('/app/links/new');
    await page.getByLabel('Destination URL').fill(shortUrl);
    await page.getByRole('button', { name: 'Create link' }).click();
    // The free links are used up by now: the price is asked first, and the refusal costs nothing.
    const before = (await fetchInPage(page, '/api/v1/account/credits')).body.purchasedBalance;
    await page.getByRole('dialog', { name: 'Pay for this link?' }).getByRole('button', { name: 'Spend 10 credits' }).click();
    await saidAtField();
    assert.equal((await fetchInPage(page, '/api/v1/account/credits')).body.purchasedBalance, before, 'nothing spent on a refused link');
    violations.push(...(await axeWhenSettled(page, 'destination refused on the new link page')));
  });

  test('every page added here is free of axe violations, in light and dark mode and at 360 px', { skip: browserSkip }, async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    for (const [path, ready] of [
      ['/app/links', page.getByRole('button', { name: 'Next page' })],
      ['/app/links/new', page.getByRole('button', { name: 'Create link' })],
      [linkPath, page.getByRole('button', { name: 'Pause' })],
      [trialPath, page.getByText(/This trial link has expired/)],
    ] as const) {
      await page.goto(path);
      await ready.waitFor();
      violations.push(...(await axeWhenSettled(page, `${path} at 360 px`)));
    }
    assert.deepEqual(violations, []);
    assert.deepEqual(csp, []);
  });
});
