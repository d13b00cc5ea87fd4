import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { unzipSync } from 'fflate';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { eachDatabase } from '../helpers/databases.js';
import { scanPng, scanSvg } from '../helpers/qr-scan.js';
import { axeInBothModes, browserSkip, collectCspViolations, screenshot } from './browser.js';
import { cmOfPoints, pdfPageSize, pngDensity, popplerMissing, renderPdf } from './print-files.js';
import { admin, fetchInPage, newPage, signIn, startWebsite, type WebsiteWorld } from './website-server.js';

const EMAIL = 'lin@example.com';
const PASSWORD = 'quartz-meadow-lantern-5120';
const FREE_LINKS = 20;
const GRANTED = 450;
const TAKEN = 'taken-alias';
const CALL_TO_ACTION = 'Scan for the poster';

interface ApiLink {
  id: string;
  title: string;
  target: string;
  tags: string;
  slug: string;
  qrUrl: string;
}

/**
 * Sixty rows, three of them bad: row 7 is not a web link, row 23 asks for an alias another link has,
 * row 41 for the alias of row 40. Every fifth row carries UTM columns; rows 59 and 60 share a title.
 */
function campaignCsv(): string {
  const lines = ['destination,title,tags,alias,utm_source,utm_medium,utm_campaign'];
  for (let row = 1; row <= 60; row++) {
    const destination = row === 7 ? 'ftp://example.org/flyer.pdf' : `https://example.org/place/${row}?lang=en`;
    const title = row >= 59 ? 'Shop window' : `Poster ${row}`;
    const alias = row === 23 ? TAKEN : row === 40 || row === 41 ? 'station' : '';
    const utm = row % 5 === 0 ? `poster-${row},print,spring` : ',,';
    lines.push(`${destination},${title},"spring, poster",${alias},${utm}`);
  }
  return lines.join('\n');
}

/** A campaign link's file name in the ZIP: its title with a hyphen for the space, the second "Shop window" with -2. */
const fileName = (link: ApiLink): string =>
  link.title === 'Shop window' ? (link.target.includes('/59?') ? 'Shop-window' : 'Shop-window-2') : link.title.replace(' ', '-');

eachDatabase('a person on the website: importing links', (kind) => {
  let world: WebsiteWorld;
  let key: string;
  let context: BrowserContext;
  let page: Page;
  let csp: string[];
  const violations: string[] = [];

  const links = async (): Promise<ApiLink[]> => {
    const all: ApiLink[] = [];
    for (let offset = 0; ; offset += 50) {
      const { body } = await fetchInPage(page, `/api/v1/links?offset=${offset}`);
      all.push(...(body.links as ApiLink[]));
      if (!body.hasMore) return all;
    }
  };
  /** The 57 links the campaign's rows made. */
  const madeByCampaign = async (): Promise<ApiLink[]> => {
    const made = (await links()).filter((link) => link.title !== '' && !link.target.includes('first') && !link.target.includes('second'));
    assert.equal(made.length, 57);
    return made;
  };
  /** Saves a QR design with a link, as a program would (PUT /links/{id}/qr/design). */
  const saveDesign = async (id: string, design: Record<string, unknown>) => {
    const res = await fetch(`${world.server.baseUrl}/api/v1/links/${id}/qr/design`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(design),
    });
    assert.equal(res.status, 200, await res.text());
  };
  let lastZip: Record<string, Uint8Array> | undefined;
  /** Download QR codes (ZIP), once the run is over: its files by name. */
  const downloadZip = async (): Promise<Record<string, Uint8Array>> => {
    // Each code is drawn, made into three files and read back: the whole ZIP takes longer than Playwright's default wait.
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 0 }),
      page.getByRole('button', { name: 'Download QR codes (ZIP)' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'qr-codes.zip');
    lastZip = unzipSync(new Uint8Array(fs.readFileSync(await download.path())));
    await page.waitForFunction(() => document.querySelector('.busy') === null);
    return lastZip;
  };
  const balance = async (): Promise<number> => (await fetchInPage(page, '/api/v1/account/usage')).body.purchasedBalance;
  const report = () => page.locator('.notice[role="status"]');
  /** The Status cell of a row of the table, by its number. */
  const rowStatus = (row: number) =>
    page
      .getByRole('row', { name: new RegExp(`^${row} `) })
      .getByRole('cell')
      .last()
      .innerText();
  /** axe on the page as it is, in light and dark, at 1280 and at 360 pixels (there a screenshot when named). */
  const axeAtBothWidths = async (label: string, shot?: string) => {
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForFunction(() => document.querySelector('.busy') === null);
      violations.push(...(await axeInBothModes(page, `${label} at ${width} px`)));
      if (shot && width === 360) await screenshot(page, shot, world.shots, { fullPage: false });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  before(async () => {
    if (browserSkip) return;
    // The rate limit's pause is forced below, once; the website's own limits would slow the suite only.
    world = await startWebsite(kind, {
      FREE_LINKS_PER_MONTH: String(FREE_LINKS),
      WEBSITE_RATE_LIMIT_PER_IP: '100000',
      WEBSITE_RATE_LIMIT_PER_ACCOUNT: '100000',
    });
    const account = await admin(world, 'accounts create', { email: EMAIL, password: PASSWORD });
    await admin(world, 'credits grant', { account: account.id, credits: String(GRANTED) });
    ({ key } = await admin(world, 'keys create', { account: account.id, scopes: 'links:write' }));
    const made = await fetch(`${world.server.baseUrl}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ target: 'https://example.org/elsewhere', alias: TAKEN }),
    });
    assert.equal(made.status, 200);
    ({ context, page } = await newPage(world, { width: 1280 }));
    csp = collectCspViolations(page);
    await signIn(page, EMAIL, PASSWORD);
  });
  after(async () => {
    await context?.close();
    await world?.close();
  });

  test('Import links opens from the links page; two free rows made with a double click are made once each', { skip: browserSkip }, async () => {
    await page.getByRole('link', { name: 'Import links' }).click();
    await page.waitForURL(/\/app\/links\/import$/);
    await page.getByRole('heading', { name: 'Import links' }).waitFor();
    await axeAtBothWidths('the empty import page');
    await page.getByLabel('Rows').fill('destination,title\nexample.org/first,First\nhttps://example.org/second,Second');
    await page.getByRole('button', { name: 'Check rows' }).click();
    await page.getByText('2 rows. 2 links can be made, all free.').waitFor();
    await page.getByRole('button', { name: 'Create links' }).dblclick();
    await report().getByText('Made: 2 links, from rows 1–2.').waitFor();
    assert.equal((await links()).length, 3);
    assert.ok(
      (await links()).some((link) => link.target === 'https://example.org/first'),
      'https:// is added as in the new-link form',
    );
    await page.getByRole('button', { name: 'Start another import' }).click();
    assert.equal(await page.getByLabel('Rows').inputValue(), '');
  });

  test('a CSV file is read into Rows; a header without a destination is said at the field', { skip: browserSkip }, async () => {
    await page.getByLabel('CSV file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('title,alias\nMenu,menu\n') });
    await page.getByRole('button', { name: 'Check rows' }).click();
    await page.getByText(/The first line must name the columns/).waitFor();
    assert.equal(await page.getByLabel('Rows').getAttribute('aria-invalid'), 'true');
    await axeAtBothWidths('the import page with an unreadable file');
  });

  test('a destination whose site name holds spaces cannot be made, though the browser would write it percent-encoded', { skip: browserSkip }, async () => {
    await page.getByLabel('Rows').fill('destination,title,tags,alias\nnot a url,Bad,,\nexample.org/fine,Fine,,\n');
    await page.getByRole('button', { name: 'Check rows' }).click();
    await page.getByText(/1 row cannot be made/).waitFor();
    assert.match(await rowStatus(1), /Cannot be made: The destination is not a web address: its site name/);
  });

  test('60 rows checked: three bad ones said why, 17 free, 40 for 400 credits', { skip: browserSkip }, async () => {
    await page.getByLabel('CSV file').setInputFiles({ name: 'campaign.csv', mimeType: 'text/csv', buffer: Buffer.from(campaignCsv()) });
    await page.getByRole('button', { name: 'Check rows' }).click();
    await page
      .getByText('60 rows. 57 links can be made: 17 free and 40 for 400 credits in all (450 available). 3 rows cannot be made: the table says why.')
      .waitFor();
    assert.match(await rowStatus(7), /Cannot be made: Only http:\/\/ and https:\/\/ addresses can be linked/);
    assert.match(await rowStatus(23), new RegExp(`Cannot be made: The alias ${TAKEN} is taken`));
    assert.match(await rowStatus(41), /Cannot be made: Row 40 has the alias station already/);
    assert.equal(await rowStatus(18), 'Free');
    assert.equal(await rowStatus(19), '10 credits');
    await page.getByRole('heading', { name: 'Checked rows' }).evaluate((heading) => heading.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'import', world.shots, { fullPage: false });
    await axeAtBothWidths('the checked import', 'import-360');
  });

  test(
    'a double click pays once; a rate-limit refusal is waited out; a lost answer stops the run and says which rows were made',
    { skip: browserSkip },
    async () => {
      // The 20th request is refused for the rate limit (row 21, sent again a second later); the answer
      // to the 31st (the 30th good row, row 32) is lost on its way back, after the server made the link.
      let creations = 0;
      await page.route('**/api/v1/links', async (route: Route) => {
        if (route.request().method() !== 'POST') return route.continue();
        creations++;
        if (creations === 20)
          return route.fulfill({ status: 429, headers: { 'retry-after': '1' }, contentType: 'application/json', body: '{"error":"rate_limited"}' });
        if (creations === 31) {
          await route.fetch();
          return route.abort('connectionreset');
        }
        return route.continue();
      });
      await page.getByRole('button', { name: 'Create links' }).click();
      const dialog = page.getByRole('dialog', { name: 'Spend up to 400 credits?' });
      await dialog.getByText('40 links are past this month’s free links: they cost 400 credits from your purchased balance (450 available).').waitFor();
      await dialog.getByRole('button', { name: 'Spend 400 credits' }).dblclick();
      await report()
        .getByText(/^Stopped at row 32: The service could not be reached/)
        .waitFor();
      await page.unroute('**/api/v1/links');
      const stopped = await report().innerText();
      assert.match(stopped, /Made: 29 links, from rows 1–6, 8–22, 24–31\./);
      assert.match(stopped, /No answer for row 32: its link may or may not have been made\./);
      assert.match(stopped, /Not sent yet: rows 33–40, 42–60\./);
      assert.match(stopped, /Create links again to go on/);
      assert.equal((await links()).length, 3 + 30, 'row 32 was made; its answer was lost');
      assert.equal(await balance(), GRANTED - 13 * 10, 'rows 1 to 18 were free (17 good ones), 19 to 32 paid');
    },
  );

  test('after a reload Create links goes on: row 32 is answered, not made again, and exactly the 40 paid rows are charged', { skip: browserSkip }, async () => {
    await page.reload();
    await page.getByText(/29 links were made by this import already\. 1 row was sent without an answer/).waitFor();
    await page.getByRole('button', { name: 'Create links' }).click();
    await page.getByRole('dialog', { name: 'Spend up to 280 credits?' }).getByRole('button', { name: 'Spend 280 credits' }).click();
    await report().getByText('Made: 57 links, from rows 1–6, 8–22, 24–40, 42–60.').waitFor();
    const all = await links();
    assert.equal(all.length, 3 + 57, 'each good row made once');
    assert.equal(await balance(), GRANTED - 400);
    const byTitle = new Map(all.map((link) => [link.title, link]));
    assert.equal(byTitle.get('Poster 10')!.target, 'https://example.org/place/10?lang=en&utm_source=poster-10&utm_medium=print&utm_campaign=spring');
    assert.equal(byTitle.get('Poster 11')!.target, 'https://example.org/place/11?lang=en');
    assert.equal(byTitle.get('Poster 11')!.tags, 'spring, poster');
    assert.equal(byTitle.get('Poster 40')!.slug, 'station');
    assert.equal(await page.getByRole('button', { name: 'Create links' }).isDisabled(), true, 'nothing is left to make');
    await axeAtBothWidths('the import once made');
    await screenshot(page, 'import-made', world.shots, { fullPage: false });
  });

  test('after a reload with every answer lost, Create links sends each row again and the API makes and charges none twice', { skip: browserSkip }, async () => {
    await page.evaluate(() => {
      const saved = JSON.parse(sessionStorage.getItem('import:links')!) as { outcomes: Record<string, { state: string; link?: unknown }> };
      for (const outcome of Object.values(saved.outcomes)) {
        outcome.state = 'sending';
        delete outcome.link;
      }
      sessionStorage.setItem('import:links', JSON.stringify(saved));
    });
    await page.reload();
    await page.getByText(/57 rows were sent without an answer/).waitFor();
    await page.getByRole('button', { name: 'Create links' }).click();
    await page.getByRole('dialog', { name: 'Spend up to 400 credits?' }).getByRole('button', { name: 'Spend 400 credits' }).click();
    await report().getByText('Made: 57 links, from rows 1–6, 8–22, 24–40, 42–60.').waitFor();
    assert.equal((await links()).length, 3 + 57);
    assert.equal(await balance(), GRANTED - 400);
  });

  test(
    'the ZIP holds each made link’s code as SVG, 300 dpi PNG and PDF, named by its title, each decoding to the link’s QR URL; rate-limit refusals are waited out',
    { skip: browserSkip },
    async (t) => {
      const made = await madeByCampaign();
      const framed = made.find((link) => link.title === 'Poster 12')!;
      await saveDesign(framed.id, { preset: 'sage', callToAction: CALL_TO_ACTION, printShortUrl: true, printSizeCm: 8 });
      // The 5th design read and the 9th drawing are refused for the rate limit, and sent again a second later.
      const asked = { GET: 0, POST: 0 };
      const design = /\/api\/v1\/links\/[^/]+\/qr\/design(\/preview)?$/;
      await page.route(design, async (route: Route) => {
        const method = route.request().method() as 'GET' | 'POST';
        if (++asked[method] === (method === 'GET' ? 5 : 9))
          return route.fulfill({ status: 429, headers: { 'retry-after': '1' }, contentType: 'application/json', body: '{"error":"rate_limited"}' });
        return route.continue();
      });
      const zipScripts = () =>
        page.evaluate(() => performance.getEntriesByType('resource').filter((entry) => /\/(qr-zip|qr-pdf)-[^/]*\.js$/.test(entry.name)).length);
      assert.equal(await zipScripts(), 0, 'the ZIP maker and the PDF writer are not part of the page until they are asked for');
      const files = await downloadZip();
      await page.unroute(design);
      assert.equal(await zipScripts(), 2);
      assert.deepEqual(asked, { GET: 57 + 1, POST: 57 + 1 }, 'one design read and one drawing per link, and each refused one again');
      assert.equal(Object.keys(files).length, 57 * 3);
      assert.equal(await page.locator('.import-page').getByText('Not in the ZIP').count(), 0);
      if (popplerMissing) t.diagnostic(`the PDFs are not rendered: ${popplerMissing}`);
      for (const link of made) {
        const name = fileName(link);
        const printCm = link === framed ? 8 : 5;
        const svg = Buffer.from(files[`${name}.svg`]!).toString('utf8');
        const png = Buffer.from(files[`${name}.png`]!);
        assert.deepEqual(Object.values(await scanSvg(svg)).slice(0, 2), [link.qrUrl, link.qrUrl], `${name}.svg`);
        assert.equal(png.readUInt32BE(16), Math.round((printCm / 2.54) * 300), `${name}.png is ${printCm} cm at 300 dpi`);
        assert.deepEqual(pngDensity(png), { perMetre: 11811, unit: 1 }, `${name}.png is marked as 300 dpi`);
        assert.deepEqual(Object.values(await scanPng(png)).slice(0, 2), [link.qrUrl, link.qrUrl], `${name}.png`);
        if (popplerMissing) continue;
        const pdf = path.join(world.shots, `${name}.pdf`);
        fs.writeFileSync(pdf, files[`${name}.pdf`]!);
        assert.ok(Math.abs(cmOfPoints(pdfPageSize(pdf).width) - printCm) < 0.01, `${name}.pdf is ${printCm} cm wide`);
        assert.deepEqual(Object.values(await scanPng(renderPdf(pdf, 150))).slice(0, 2), [link.qrUrl, link.qrUrl], `${name}.pdf`);
      }
    },
  );

  test(
    'the link with a saved design comes out framed, with its call to action and short URL, in the ZIP’s SVG, PNG and PDF',
    { skip: browserSkip },
    async () => {
      const files = lastZip!;
      const plain = Buffer.from(files['Poster-11.svg']!).toString('utf8');
      const svg = Buffer.from(files['Poster-12.svg']!).toString('utf8');
      const size = (text: string) => /^<svg [^>]*width="(\d+)" height="(\d+)"/.exec(text)!.slice(1).map(Number);
      const [width, height] = size(svg);
      assert.equal(size(plain)[0], size(plain)[1], 'a link without a saved design: the default code, square, no frame');
      assert.ok(height! > width!, 'the frame’s band and the short URL make the code taller than wide');
      assert.match(svg, /<rect [^>]*fill="#eef3ea"/, 'the saved preset’s background');
      assert.match(svg, /<path fill="#2f4a3a" d="M/, 'the frame, in the saved foreground');
      assert.equal((svg.match(/<path fill="#eef3ea" transform=/g) ?? []).length, 1, 'the call to action, as outlines in the frame');
      assert.equal((svg.match(/<path fill="#2f4a3a" transform=/g) ?? []).length, 1, 'the short URL, as outlines under it');
      const png = Buffer.from(files['Poster-12.png']!);
      assert.ok(png.readUInt32BE(20) > png.readUInt32BE(16), 'the PNG is the framed piece, taller than wide');
      fs.writeFileSync(path.join(world.shots, 'zip-framed.png'), png);
      if (popplerMissing) return;
      const pdf = path.join(world.shots, 'zip-framed-page.pdf');
      fs.writeFileSync(pdf, files['Poster-12.pdf']!);
      const sheet = pdfPageSize(pdf);
      assert.ok(sheet.height > sheet.width, 'so is the PDF’s page');
    },
  );

  test('a code that does not read as its link is named and left out of the ZIP, and every other file is in', { skip: browserSkip }, async () => {
    const made = await madeByCampaign();
    const [one, two] = ['Poster 1', 'Poster 2'].map((title) => made.find((link) => link.title === title)!);
    // Poster 2's drawing is Poster 1's code: made and read back, its files read as the wrong link.
    const preview = `**/api/v1/links/${two!.id}/qr/design/preview`;
    await page.route(preview, async (route: Route) => route.fulfill({ response: await route.fetch({ url: route.request().url().replace(two!.id, one!.id) }) }));
    const files = await downloadZip();
    await page.unroute(preview);
    assert.equal(Object.keys(files).length, 56 * 3);
    assert.equal(Object.keys(files).filter((name) => name.startsWith('Poster-2.')).length, 0);
    const said = page.getByRole('status').filter({ hasText: 'Not in the ZIP' });
    for (const extension of ['svg', 'png', 'pdf']) {
      await said.getByText(`Poster-2.${extension}: it reads as ${one!.qrUrl}, not ${two!.qrUrl}.`).waitFor();
    }
    assert.equal(await said.getByRole('link', { name: 'Poster-2.png' }).getAttribute('href'), `/app/links/${two!.id}`);
    await said.evaluate((report) => report.scrollIntoView({ block: 'center' }));
    await axeAtBothWidths('the import with files left out of the ZIP');
    await page.screenshot({ path: path.join(world.shots, 'import-zip-left-out.png') });
  });

  test('the import page logged no Content-Security-Policy refusal and passed axe throughout', { skip: browserSkip }, async () => {
    assert.deepEqual(violations, []);
    assert.deepEqual(csp, []);
  });
});
