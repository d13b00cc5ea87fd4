import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { eachDatabase } from '../helpers/databases.js';
import { until } from '../helpers/load.js';
import { logoPng } from '../helpers/png.js';
import { scanPng, scanSvg } from '../helpers/qr-scan.js';
import { axeInBothModes, browserSkip, collectCspViolations, download, sectionShot } from './browser.js';
import { admin, fetchInPage, createLinkWithKey, newPage, signIn, startWebsite, type MadeLink, type WebsiteWorld } from './website-server.js';

const EMAIL = 'grace@example.com';
const PASSWORD = 'copper-lantern-meadow-4412';
const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

const ALLOWANCE = 4;
/** How often the link page asks for its stats again by itself (REFRESH_MS in web/src/pages/link/use-stats.ts). */
const PAGE_REFRESH_MS = 10_000;
/** How long new visits may take to be recorded, and then shown. */
const SHOWN_MS = 30_000;

eachDatabase('the QR designer and analytics on a link page', (kind) => {
  let world: WebsiteWorld;
  let context: BrowserContext;
  let page: Page;
  let csp: string[];
  let link: MadeLink;

  before(async () => {
    if (browserSkip) return;
    // Four recorded visits a month: the fifth, late in the suite, opens a gap in recording.
    world = await startWebsite(kind, { FREE_VISITS_PER_MONTH: String(ALLOWANCE) });
    const account = await admin(world, 'accounts create', { email: EMAIL, password: PASSWORD });
    const { key } = await admin(world, 'keys create', { account: account.id, scopes: 'links:write' });
    link = await createLinkWithKey(world, key, { target: 'https://example.com/autumn-poster', title: 'Autumn poster' });
    ({ context, page } = await newPage(world));
    // The page's timers run on a clock the test can move on: its refresh need not be waited out.
    await context.clock.install();
    csp = collectCspViolations(page);
    await signIn(page, EMAIL, PASSWORD);
  });
  after(async () => {
    await context?.close();
    await world?.close();
  });

  /**
   * Waits until the server has recorded what `recorded` looks for (read as the page's session), then
   * until the page shows it, moving the page's clock on by its refresh period so that it asks again by itself.
   */
  async function untilShown(what: string, recorded: (stats: { total: number; gaps: unknown[] }) => boolean, shown: () => Promise<boolean>) {
    await until(`the server has recorded ${what}`, async () => recorded((await fetchInPage(page, `/api/v1/links/${link.id}/stats?days=7`)).body), SHOWN_MS);
    await until(
      `the page shows ${what}`,
      async () => {
        if (await shown()) return true;
        await page.clock.fastForward(PAGE_REFRESH_MS);
        return false;
      },
      SHOWN_MS,
    );
  }

  test('visits through the short URL and the QR URL appear in the chart’s table while the page stays open', { skip: browserSkip }, async () => {
    await page.goto(`/app/links/${link.id}`);
    await page.getByRole('heading', { name: 'Analytics' }).waitFor();
    const today = new Date().toISOString().slice(0, 10);
    const todayRow = page.getByRole('region', { name: /daily visits/i }).getByRole('row', { name: new RegExp(today) });
    await todayRow.waitFor();
    assert.deepEqual(withoutVisitors(await cells(todayRow)), [today, '0', '0', '0', '']);
    const phone = await world.browser.newContext({ userAgent: PHONE });
    const scanned = await phone.request.get(link.qrUrl, { maxRedirects: 0 });
    assert.equal(scanned.headers().location, 'https://example.com/autumn-poster');
    await phone.close();
    const clicked = await fetch(link.shortUrl, { redirect: 'manual', headers: { 'user-agent': DESKTOP } });
    assert.equal(clicked.status, 302);
    // No reload: the section asks again by itself.
    await untilShown(
      'both visits',
      (stats) => stats.total === 2,
      async () => JSON.stringify(withoutVisitors(await cells(todayRow))) === JSON.stringify([today, '1', '1', '2', '']),
    );
    await page
      .getByRole('table', { name: 'Devices' })
      .getByRole('row', { name: /Mobile/ })
      .waitFor();
    await page.getByText(/Updated (just now|\d+ seconds? ago)/).waitFor();
  });

  test('a QR code with a logo is checked to scan in the page, and its PNG and SVG downloads both decode to the QR URL', { skip: browserSkip }, async () => {
    const section = page.getByRole('region', { name: 'QR code' });
    await section.getByLabel('Preset').selectOption('ocean');
    await section.getByLabel('Dot style').selectOption('rounded');
    await section.getByLabel('Corner style').selectOption('rounded');
    await section.getByLabel('Size (pixels)').fill('512');
    await section.getByLabel(/^Logo/).setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logoPng(96) });
    await section.getByText('logo.png, 96 × 96 pixels').waitFor();
    await section.getByText(`Scans to ${link.qrUrl} ✓`).waitFor();

    const png = await download(page, section.getByRole('button', { name: 'Download PNG' }));
    assert.match(png.name, /\.png$/);
    // 300 dpi of the default print size, 5 cm: the SVG's size in pixels is the SVG's alone.
    assert.deepEqual([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)], [591, 591], 'the PNG is 5 cm at 300 dpi');
    const pngScan = await scanPng(png.bytes);
    assert.deepEqual([pngScan.jsqr, pngScan.zxing], [link.qrUrl, link.qrUrl]);

    const svg = await download(page, section.getByRole('button', { name: 'Download SVG' }));
    assert.match(svg.name, /\.svg$/);
    const text = svg.bytes.toString('utf8');
    assert.match(text, /<image[^>]+data:image\/png;base64,/, 'the logo is in the SVG');
    const svgScan = await scanSvg(text);
    assert.deepEqual([svgScan.jsqr, svgScan.zxing], [link.qrUrl, link.qrUrl]);
    await sectionShot(section, 'qr-designer', world.shots);
  });

  test('a contrast below 4.5 is explained at once and asks nothing of the API', { skip: browserSkip }, async () => {
    const section = page.getByRole('region', { name: 'QR code' });
    const asked: string[] = [];
    const record = (request: Request) => void (request.url().endsWith('/qr/design/preview') && asked.push(request.postData() ?? ''));
    page.on('request', record);
    await section.getByLabel('Foreground', { exact: true }).fill('#9a9a9a');
    await section.getByText(/contrast is below 4\.5:1/).waitFor();
    assert.match(await section.locator('.qr-contrast').innerText(), /2\.\d\d:1/);
    assert.equal(await section.getByRole('button', { name: 'Download PNG' }).isDisabled(), true);
    // A readable colour again: its preview is the first request since the low contrast was typed.
    const next = page.waitForResponse((response) => response.url().endsWith('/qr/design/preview'));
    await section.getByLabel('Foreground', { exact: true }).fill('#0b3d5c');
    await next;
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /"foreground":"#0b3d5c"/);
    page.off('request', record);
    await section.getByText(`Scans to ${link.qrUrl} ✓`).waitFor();
  });

  test('a logo that is not a PNG or larger than 512 × 512 is refused in the page', { skip: browserSkip }, async () => {
    const section = page.getByRole('region', { name: 'QR code' });
    await section.getByLabel(/^Logo/).setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: logoPng(600) });
    await section.getByText(/600 × 600 pixels; at most 512 × 512/).waitFor();
    await section.getByLabel(/^Logo/).setInputFiles({ name: 'logo.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('not a png') });
    await section.getByText('The logo must be a PNG image.').waitFor();
  });

  test('the CSV download holds the visits of the day by source', { skip: browserSkip }, async () => {
    for (let i = 0; i < 2; i++) assert.equal((await fetch(link.shortUrl, { redirect: 'manual', headers: { 'user-agent': DESKTOP } })).status, 302);
    const today = new Date().toISOString().slice(0, 10);
    const rows = page.getByRole('region', { name: /daily visits/i }).getByRole('row');
    const todayRow = rows.filter({ hasText: today });
    await untilShown(
      'the new visits',
      (stats) => stats.total === 4,
      async () => (await rows.count()) === 31 && (await cells(todayRow))[1] === '3',
    );
    const csv = await download(page, page.getByRole('button', { name: 'Download CSV' }));
    assert.match(csv.name, /\.csv$/);
    const lines = csv.bytes.toString('utf8').trim().split(/\r?\n/);
    assert.match(lines[0]!, /^kind,/);
    assert.ok(lines.includes(`visits,${today},source,s,3,,,`), lines.join('\n'));
    assert.ok(lines.includes(`visits,${today},source,q,1,,,`), lines.join('\n'));
  });

  test('a visit past the monthly recording allowance is a gap, shaded on the chart and named in the table and the list', { skip: browserSkip }, async () => {
    const section = page.getByRole('region', { name: 'Analytics' });
    assert.equal((await fetch(link.qrUrl, { redirect: 'manual', headers: { 'user-agent': PHONE } })).status, 302);
    const gap = section.getByText(/\): Monthly recording allowance used up/);
    await untilShown(
      'the gap',
      (stats) => stats.gaps.length > 0,
      () => gap.isVisible(),
    );
    const today = new Date().toISOString().slice(0, 10);
    const todayRow = section.getByRole('region', { name: /daily visits/i }).getByRole('row', { name: new RegExp(today) });
    assert.deepEqual(withoutVisitors(await cells(todayRow)), [today, '3', '1', String(ALLOWANCE), 'Monthly recording allowance used up']);
    await sectionShot(section, 'analytics', world.shots);
  });

  test('the link page passes axe-core in light and dark mode, fits 360 px, and breaks no Content-Security-Policy rule', { skip: browserSkip }, async () => {
    await page.getByText(`Scans to ${link.qrUrl} ✓`).waitFor();
    const found = await axeInBothModes(page, 'link page');
    const { context: narrow, page: phone } = await newPage(world, { width: 360 });
    await signIn(phone, EMAIL, PASSWORD);
    await phone.goto(`/app/links/${link.id}`);
    await phone.getByText(`Scans to ${link.qrUrl} ✓`).waitFor();
    await phone.getByRole('table', { name: 'Countries' }).waitFor();
    found.push(...(await axeInBothModes(phone, 'link page at 360 px')));
    assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= 360), 'the link page fits 360 px');
    await narrow.close();
    assert.deepEqual(found, []);
    assert.deepEqual(csp, []);
  });
});

/** A daily row without its unique visitors (an estimate, checked against the API in website-insights.test.ts). */
const withoutVisitors = (row: string[]) => [...row.slice(0, 4), ...row.slice(5)];

async function cells(row: ReturnType<Page['getByRole']>): Promise<string[]> {
  return (await row.locator('th, td').allInnerTexts()).map((text) => text.trim());
}
