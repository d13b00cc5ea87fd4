import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { eachDatabase } from '../helpers/databases.js';
import { until } from '../helpers/load.js';
import { axeInBothModes, browserSkip, screenshot } from './browser.js';
import { admin, fetchInPage, createLinkWithKey, newPage, signIn, startWebsite, type MadeLink, type WebsiteWorld } from './website-server.js';

const EMAIL = 'ada@example.com';
const PASSWORD = 'copper-lantern-meadow-4412';
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const ZONE = 'Europe/Berlin';

eachDatabase('a link’s analytics and its campaign on the website', (kind) => {
  let world: WebsiteWorld;
  let context: BrowserContext;
  let page: Page;
  let poster: MadeLink;
  let flyer: MadeLink;

  before(async () => {
    if (browserSkip) return;
    world = await startWebsite(kind, { COUNTRY_HEADER: 'x-country' });
    const account = await admin(world, 'accounts create', { email: EMAIL, password: PASSWORD });
    const { key } = await admin(world, 'keys create', { account: account.id, scopes: 'links:write' });
    const make = (title: string) => createLinkWithKey(world, key, { target: 'https://example.com/autumn', title, tags: 'autumn' });
    poster = await make('Station poster');
    flyer = await make('Cafe flyer');
    // Visits through real redirects: people on phones and computers in three countries, and a bot.
    const visit = async (url: string, agent: string, country: string) =>
      assert.equal((await fetch(url, { redirect: 'manual', headers: { 'user-agent': agent, 'x-country': country } })).status, 302);
    for (let i = 0; i < 3; i++) await visit(poster.qrUrl, PHONE, 'DE');
    await visit(poster.qrUrl, PHONE, 'FR');
    await visit(poster.shortUrl, DESKTOP, 'US');
    await visit(poster.shortUrl, BOT, 'US');
    await visit(flyer.shortUrl, DESKTOP, 'FR');
    context = await world.browser.newContext({ baseURL: world.server.baseUrl, viewport: { width: 1280, height: 900 }, timezoneId: ZONE });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await signIn(page, EMAIL, PASSWORD);
    await until('the visits are recorded', async () => (await fetchInPage(page, `/api/v1/links/${poster.id}/stats?days=7`)).body?.total === 6, 30_000);
  });
  after(async () => {
    await context?.close();
    await world?.close();
  });

  /** The headline's figures as the page shows them. */
  const headline = () =>
    page
      .locator('.analytics-totals')
      .evaluate((list) =>
        Object.fromEntries(
          [...list.querySelectorAll('div')].map((d) => [d.querySelector('dt')!.textContent.trim(), d.querySelector('dd')!.textContent.trim()]),
        ),
      );
  const api = async (query: string) => (await fetchInPage(page, `/api/v1/links/${poster.id}/stats?days=30&tz=${ZONE}&${query}`)).body;
  const sum = (stats: { daily: Record<string, number>[] }, key: string) => String(stats.daily.reduce((total, d) => total + d[key]!, 0));

  test('the headline, with each filter, equals the API’s figures; the zone is the browser’s and named', { skip: browserSkip }, async () => {
    await page.goto(`/app/links/${poster.id}`);
    assert.equal(await page.getByLabel('Time zone').inputValue(), ZONE);
    assert.equal(await page.getByRole('checkbox', { name: 'Include bots' }).isChecked(), false);
    await page.getByText(`times in ${ZONE}`).waitFor();
    const cases: [string, () => Promise<void>, string][] = [
      ['bots left out', async () => {}, 'bots=exclude'],
      ['QR code', () => page.getByRole('radio', { name: 'QR code' }).check(), 'bots=exclude&source=q'],
      ['short link', () => page.getByRole('radio', { name: 'Short link' }).check(), 'bots=exclude&source=s'],
      ['bots included', () => page.getByRole('checkbox', { name: 'Include bots' }).check(), 'bots=include&source=s'],
      ['both', () => page.getByRole('radio', { name: 'Both' }).check(), 'bots=include'],
    ];
    for (const [name, act, query] of cases) {
      await act();
      const stats = await api(query);
      const label = query.includes('include') ? 'Visits, bots included' : 'Visits';
      await until(`the headline follows the filter ${name}`, async () => (await headline())[label] === String(stats.total), 20_000);
      const shown = await headline();
      assert.equal(shown['Unique visitors'], sum(stats, 'visitors'), name);
      if (!query.includes('source=s')) assert.equal(shown['Through the QR code'], sum(stats, 'q'), name);
      if (!query.includes('source=q')) assert.equal(shown['Through the short link'], sum(stats, 's'), name);
    }
    const stats = await api('bots=exclude');
    assert.equal(stats.total, 5);
    await page.getByRole('checkbox', { name: 'Include bots' }).uncheck();
    await page.getByText('Most visits came through the QR code (80%)').waitFor();
  });

  test('the map is drawn in a chunk of its own and has its table twin with the API’s countries', { skip: browserSkip }, async () => {
    const countries = page.getByRole('table', { name: 'Countries' });
    await countries.getByRole('row', { name: /Germany/ }).waitFor();
    const stats = await api('bots=exclude');
    for (const { country, count } of stats.countries as { country: string; count: number }[]) {
      const name = new Intl.DisplayNames(['en'], { type: 'region' }).of(country)!;
      assert.match(await countries.getByRole('row', { name: new RegExp(name) }).innerText(), new RegExp(`\\b${count}\\b`));
    }
    await until('the map shades the countries', async () => (await page.locator('.world-map svg').getAttribute('data-countries-shaded')) === '3', 20_000);
    await page.getByRole('table', { name: 'Browsers' }).waitFor();
    await page.getByRole('table', { name: 'Operating systems' }).waitFor();
    await screenshot(page, 'link-analytics', world.shots);
  });

  test('the world map’s script loads only on the link page', { skip: browserSkip }, async () => {
    const { context: other, page: fresh } = await newPage(world);
    const scripts: string[] = [];
    fresh.on('request', (r) => void (r.resourceType() === 'script' && scripts.push(r.url())));
    await signIn(fresh, EMAIL, PASSWORD);
    await fresh.goto('/app/links');
    await fresh.getByRole('link', { name: 'Campaigns' }).waitFor();
    assert.equal(scripts.filter((s) => /world-shapes/.test(s)).length, 0);
    await fresh.goto(`/app/links/${poster.id}`);
    await fresh.locator('.world-map svg').waitFor();
    assert.equal(scripts.filter((s) => /world-shapes/.test(s)).length, 1);
    await other.close();
  });

  test('the campaign compares the tag’s links by short link and QR code as the API counts them', { skip: browserSkip }, async () => {
    await page.goto('/app/campaigns');
    await page.getByRole('link', { name: 'autumn' }).click();
    const table = page.getByRole('table', { name: /Links tagged/ });
    const row = table.getByRole('row', { name: /Station poster/ });
    await row.waitFor();
    const tag = (await fetchInPage(page, `/api/v1/links/stats?tag=autumn&days=30&bots=exclude&tz=${ZONE}`)).body;
    const mine = tag.links.find((l: { id: string }) => l.id === poster.id);
    const cells = (await row.locator('th, td').allInnerTexts()).map((t) => t.trim());
    assert.deepEqual(cells.slice(1, 4), [String(mine.s), String(mine.q), String(mine.total)]);
    assert.match(cells[0]!, /Best placement/);
    await page.getByRole('button', { name: 'Download CSV' }).waitFor();
    await screenshot(page, 'campaign', world.shots);
  });

  test('the link page and the campaign pass axe in light and dark at 1280 and 360 px', { skip: browserSkip }, async () => {
    const found = await axeInBothModes(page, 'campaign');
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`/app/links/${poster.id}`);
      await page.locator('.world-map svg').waitFor();
      await page.getByRole('table', { name: 'Countries' }).waitFor();
      await until('nothing is loading any more', async () => (await page.locator('.busy').count()) === 0, 20_000);
      found.push(...(await axeInBothModes(page, `link page at ${width} px`)));
      await screenshot(page, `link-analytics-${width}`, world.shots);
    }
    assert.deepEqual(found, []);
  });
});
