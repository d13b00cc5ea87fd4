import assert from 'node:assert/strict';
import fs from 'node:fs';
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
  let sticker: MadeLink;

  before(async () => {
    if (browserSkip) return;
    // Seven free visits a month: the sticker's second visit is past them, a gap in the campaign.
    world = await startWebsite(kind, { COUNTRY_HEADER: 'x-country', FREE_VISITS_PER_MONTH: '7' });
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
    sticker = await make('Window sticker');
    await visit(sticker.qrUrl, PHONE, 'DE');
    await visit(sticker.qrUrl, DESKTOP, 'DE');
    await until(
      'the sticker’s visit past the allowance is a gap',
      async () => (await fetchInPage(page, `/api/v1/links/${sticker.id}/stats?days=7`)).body?.gaps.length === 1,
      30_000,
    );
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

  test('seven days are drawn by the hour to the right edge, and with both ways in the bars are all visits and say so', { skip: browserSkip }, async () => {
    await page.goto(`/app/links/${poster.id}`);
    await page.getByRole('radio', { name: '7 days' }).check();
    const chart = page.locator('.analytics-daily .visits-chart');
    await chart.getByText(`Visits per hour (${ZONE})`).waitFor();
    const stats = await fetchInPage(page, `/api/v1/links/${poster.id}/stats?days=7&tz=${ZONE}&bots=exclude`);
    const dates = stats.body.daily.map((d: { date: string }) => d.date);
    const [first, last] = [Date.parse(`${dates[0]}T00:00:00Z`) / 1000, Date.parse(`${dates.at(-1)}T00:00:00Z`) / 1000 + 86_400];
    await until('the hourly chart is drawn', async () => (await chart.locator('.chart-canvas').getAttribute('data-span')) === `${first},${last}`, 20_000);
    assert.deepEqual(await chart.locator('figcaption .legend').allInnerTexts(), ['Visits']);
    await page.getByRole('radio', { name: 'QR code' }).check();
    await until('the legend names the QR code', async () => (await chart.locator('figcaption .legend').allInnerTexts()).join() === 'QR code', 20_000);
    await page.getByRole('radio', { name: 'Both' }).check();
    await page.getByRole('radio', { name: '30 days' }).check();
    await until(
      'by the day, both ways in are told apart',
      async () => (await chart.locator('figcaption .legend').allInnerTexts()).join() === 'Short link,QR code',
      20_000,
    );
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

  test(
    'the campaign compares the tag’s links as the API counts them: by way in, unique visitors, share, per day, with its gaps',
    { skip: browserSkip },
    async () => {
      await page.goto('/app/campaigns');
      await page.getByRole('link', { name: 'autumn' }).click();
      const table = page.getByRole('table', { name: /Links tagged/ });
      await table.getByRole('row', { name: /Station poster/ }).waitFor();
      const tag = (await fetchInPage(page, `/api/v1/links/stats?tag=autumn&days=30&bots=exclude&tz=${ZONE}`)).body;
      // By visits: the poster first; the sticker and the flyer, one visit each, in the order of their slugs.
      const titles: string[] = tag.links.map((l: { title: string }) => l.title);
      assert.deepEqual([titles[0], [...titles].sort()], ['Station poster', ['Cafe flyer', 'Station poster', 'Window sticker']]);
      const percent = (part: number) => `${Math.round((part / tag.total) * 100)}%`;
      for (const link of tag.links) {
        const shown = await cells(table.getByRole('row', { name: new RegExp(link.title) }));
        assert.deepEqual(shown.slice(1), [link.s, link.q, link.total, link.visitors, percent(link.total)].map(String), link.title);
      }
      assert.match((await cells(table.getByRole('row', { name: /Station poster/ })))[0]!, /Best placement/);
      assert.deepEqual((await cells(table.getByRole('row', { name: /All links/ }))).slice(1), [tag.s, tag.q, tag.total, tag.visitors, '100%'].map(String));
      const figures = await page.locator('.analytics-totals').evaluate((list) => [...list.querySelectorAll('dd.big-number')].map((d) => d.textContent.trim()));
      assert.deepEqual(figures, [tag.total, tag.visitors, tag.q, tag.s].map(String));

      // The chart: a line per link, and its table twin with the API's days.
      await until('the chart is drawn', async () => (await page.locator('.campaign-daily .chart-canvas canvas').count()) === 1, 20_000);
      const legend = await page.locator('.campaign-daily figcaption .legend-line').allInnerTexts();
      assert.deepEqual(legend, titles);
      const twin = page.getByRole('table', { name: /Daily visits per link/ });
      assert.deepEqual(
        (await twin.locator('thead th').allInnerTexts()).map((t) => t.trim()),
        ['Date', ...titles, 'Not recorded'],
      );
      assert.equal(await twin.locator('tbody tr').count(), 30);
      for (const day of [0, 29]) {
        const date = tag.links[0].daily[day].date;
        const row = await cells(twin.getByRole('row', { name: new RegExp(`^${date}`) }));
        const perLink = tag.links.map((l: { daily: { s: number; q: number }[] }) => String(l.daily[day]!.s + l.daily[day]!.q));
        assert.deepEqual(row.slice(0, 4), [date, ...perLink], date);
        assert.equal(row[4], day === 29 ? 'Monthly recording allowance used up' : '', date);
      }
      assert.equal(tag.gaps.length, 1);
      await page.getByText('Visits were not recorded for 1 period').waitFor();
      await page.getByRole('link', { name: 'The same numbers as a table' }).waitFor();

      const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
      const csv = fs
        .readFileSync(await file.path(), 'utf8')
        .trim()
        .split('\r\n');
      assert.equal(csv[0], 'title,slug,short_link,qr_code,total,unique_visitors,share');
      const first = tag.links[0];
      assert.equal(csv[1], [first.title, first.slug, first.s, first.q, first.total, first.visitors, percent(first.total)].join(','));
      await screenshot(page, 'campaign', world.shots);
    },
  );

  test('each tag on the links list leads to its campaign', { skip: browserSkip }, async () => {
    await page.goto('/app/links');
    const row = page.getByRole('row', { name: /Cafe flyer/ });
    await row.getByRole('link', { name: 'autumn campaign' }).click();
    await page.getByRole('heading', { name: 'Campaign “autumn”' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/campaigns/autumn');
  });

  test('times are on the browser’s clock, as the analytics are: the link’s Created and the links list’s column', { skip: browserSkip }, async () => {
    const { body: link } = await fetchInPage(page, `/api/v1/links/${poster.id}`);
    const berlin = (options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat('en-US', { timeZone: ZONE, ...options }).format(link.created_at);
    await page.goto(`/app/links/${poster.id}`);
    const created = await page.locator('.link-facts dt:text-is("Created") + dd').innerText();
    // Berlin's wall clock and the zone's name, whatever the machine's zone.
    const shown = berlin({ year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
    assert.equal(created.replace(/\s/g, ' '), shown.replace(/\s/g, ' '));
    assert.match(created, /GMT\+[12]/);
    await page.goto('/app/links');
    await page.getByRole('columnheader', { name: `Created (${ZONE})` }).waitFor();
    const cell = await page
      .getByRole('row', { name: /Station poster/ })
      .locator('td.created')
      .innerText();
    assert.equal(cell.replace(/\s/g, ' '), berlin({ dateStyle: 'medium', timeStyle: 'short' }).replace(/\s/g, ' '));
  });

  test('the link page and the campaign pass axe in light and dark at 1280 and 360 px', { skip: browserSkip }, async () => {
    const found: string[] = [];
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/app/campaigns/autumn');
      await until('the campaign’s chart is drawn', async () => (await page.locator('.campaign-daily canvas').count()) === 1, 20_000);
      found.push(...(await axeInBothModes(page, `campaign at ${width} px`)));
      if (width === 1280) assert.deepEqual(await clippedTables(page), [], 'the campaign’s daily table fits its box');
      await screenshot(page, `campaign-${width}`, world.shots);
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, `campaign-${width}-dark`, world.shots);
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`/app/links/${poster.id}`);
      await page.locator('.world-map svg').waitFor();
      await page.getByRole('table', { name: 'Countries' }).waitFor();
      await until('nothing is loading any more', async () => (await page.locator('.busy').count()) === 0, 20_000);
      found.push(...(await axeInBothModes(page, `link page at ${width} px`)));
      if (width === 1280) assert.deepEqual(await clippedTables(page), [], 'the link’s daily table fits its box');
      await screenshot(page, `link-analytics-${width}`, world.shots);
    }
    assert.deepEqual(found, []);
  });
});

/** The captions of daily tables wider than the box that scrolls them: a column cut off at the edge. */
function clippedTables(page: Page): Promise<string[]> {
  return page
    .locator('.daily-table')
    .evaluateAll((boxes) => boxes.filter((box) => box.scrollWidth > box.clientWidth).map((box) => box.querySelector('caption')?.textContent ?? '?'));
}

async function cells(row: ReturnType<Page['getByRole']>): Promise<string[]> {
  return (await row.locator('th, td').allInnerTexts()).map((text) => text.trim());
}
