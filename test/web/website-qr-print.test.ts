import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { eachDatabase } from '../helpers/databases.js';
import { logoPng } from '../helpers/png.js';
import { scanPng, scanSvg } from '../helpers/qr-scan.js';
import { axeInBothModes, browserSkip, collectCspViolations, download, sectionShot } from './browser.js';
import { cmOfPoints, pdfPageSize, pngDensity, popplerMissing, renderPdf } from './print-files.js';
import { admin, createLinkWithKey, newPage, signIn, startWebsite, type MadeLink, type WebsiteWorld } from './website-server.js';

/** The PDF test needs poppler as well as the browser. */
const popplerSkip = popplerMissing ?? browserSkip;

const EMAIL = 'ada@example.com';
const PASSWORD = 'copper-lantern-meadow-4412';
const CALL_TO_ACTION = 'Scan for the menu';

eachDatabase('the print-ready QR kit on a link page', (kind) => {
  let world: WebsiteWorld;
  let context: BrowserContext;
  let page: Page;
  let csp: string[];
  let key: string;
  let link: MadeLink;
  /** Every script the page fetched, to see when the PDF writer was loaded. */
  const scripts: string[] = [];
  const section = () => page.getByRole('region', { name: 'QR code' });
  const scans = () => section().getByText(`Scans to ${link.qrUrl} ✓`);

  before(async () => {
    if (browserSkip) return;
    world = await startWebsite(kind);
    const account = await admin(world, 'accounts create', { email: EMAIL, password: PASSWORD });
    ({ key } = await admin(world, 'keys create', { account: account.id, scopes: 'links:write,qr:read' }));
    link = await createLinkWithKey(world, key, { target: 'https://example.com/bistro-menu', title: 'Bistro menu' });
    ({ context, page } = await newPage(world, { width: 1280 }));
    csp = collectCspViolations(page);
    page.on('request', (request) => void (request.resourceType() === 'script' && scripts.push(request.url())));
    await signIn(page, EMAIL, PASSWORD);
  });
  after(async () => {
    await context?.close();
    await world?.close();
  });

  /** The API's export without a body, as a program would ask for it. */
  const exportWithoutBody = async () => {
    const res = await fetch(`${world.server.baseUrl}/api/v1/links/${link.id}/qr`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    return res.text();
  };

  test(
    'a framed design with the short URL under it is saved with the link: a reload shows it, and the API’s export without a body draws it',
    { skip: browserSkip },
    async () => {
      await page.goto(`/app/links/${link.id}`);
      await section().getByText('No design is saved with this link yet').waitFor();
      await scans().waitFor();
      await section().getByLabel('Preset').selectOption('sage');
      await section().getByLabel('Call to action').fill(CALL_TO_ACTION);
      await section().getByLabel('Print the short URL under the code').check();
      await section().getByLabel('Print size (cm)').fill('8');
      await scans().waitFor();
      await section().getByRole('button', { name: 'Save design' }).click();
      await section().getByText('This is the design saved with the link').waitFor();

      await page.reload();
      await scans().waitFor();
      assert.equal(await section().getByLabel('Preset').inputValue(), 'sage');
      assert.equal(await section().getByLabel('Call to action').inputValue(), CALL_TO_ACTION);
      assert.equal(await section().getByLabel('Print the short URL under the code').isChecked(), true);
      assert.equal(await section().getByLabel('Print size (cm)').inputValue(), '8');
      await section().getByText('This is the design saved with the link').waitFor();
      await sectionShot(section(), 'qr-print-kit', world.shots);

      const svg = await exportWithoutBody();
      const [, width, height] = /^<svg [^>]*width="(\d+)" height="(\d+)"/.exec(svg)!.map(Number);
      assert.ok(height! > width!, 'the frame’s band and the short URL make the code taller than wide');
      assert.match(svg, /<rect [^>]*fill="#eef3ea"/, 'the saved preset’s background');
      assert.match(svg, /<path fill="#2f4a3a" d="M/, 'the frame, in the saved foreground');
      assert.equal((svg.match(/<path fill="#eef3ea" transform=/g) ?? []).length, 1, 'the call to action, as outlines in the frame');
      assert.equal((svg.match(/<path fill="#2f4a3a" transform=/g) ?? []).length, 1, 'the short URL, as outlines under it');
      assert.doesNotMatch(svg, /<text/);
      const scan = await scanSvg(svg);
      assert.deepEqual([scan.jsqr, scan.zxing], [link.qrUrl, link.qrUrl]);
    },
  );

  test(
    'the framed code downloads as SVG, as a 300 dpi PNG and as a PDF of the print size, and each decodes with two readers',
    { skip: popplerSkip },
    async () => {
      // Black on white, not saved: the downloads are of what the fields hold.
      await section().getByLabel('Preset').selectOption('classic');
      await section().getByText('Changes not saved').waitFor();
      await scans().waitFor();
      assert.deepEqual(pdfWriterLoads(), [], 'the PDF writer is not part of the page until a PDF is asked for');

      const svg = await download(page, section().getByRole('button', { name: 'Download SVG' }));
      assert.match(svg.name, /\.svg$/);
      const svgScan = await scanSvg(svg.bytes.toString('utf8'));
      assert.deepEqual([svgScan.jsqr, svgScan.zxing], [link.qrUrl, link.qrUrl]);

      const png = await download(page, section().getByRole('button', { name: 'Download PNG' }));
      assert.match(png.name, /-8cm-300dpi\.png$/);
      assert.equal(png.bytes.readUInt32BE(16), Math.round((8 / 2.54) * 300), '8 cm at 300 dpi');
      assert.deepEqual(pngDensity(png.bytes), { perMetre: 11811, unit: 1 }, 'marked as 300 dpi');
      const pngScan = await scanPng(png.bytes);
      assert.deepEqual([pngScan.jsqr, pngScan.zxing], [link.qrUrl, link.qrUrl]);

      const pdf = await download(page, section().getByRole('button', { name: 'Download PDF' }));
      assert.match(pdf.name, /-8cm\.pdf$/);
      assert.equal(pdfWriterLoads().length, 1, 'loaded on demand');
      const file = path.join(world.shots, 'code.pdf');
      fs.writeFileSync(file, pdf.bytes);
      const { width: pageWidth, height: pageHeight } = pdfPageSize(file);
      assert.ok(Math.abs(cmOfPoints(pageWidth) - 8) < 0.01, `the page is 8 cm wide (${pageWidth} pt)`);
      assert.ok(pageHeight > pageWidth, 'and taller, for the frame and the short URL');
      assert.deepEqual(fillColours(pdf.bytes), ['0 0 0', '1 1 1'], 'pure black on white, nothing between');
      const rendered = renderPdf(file, 150);
      const pdfScan = await scanPng(rendered);
      assert.deepEqual([pdfScan.jsqr, pdfScan.zxing], [link.qrUrl, link.qrUrl]);
    },
  );

  test('refused colours take the code and its tick away, so nothing on screen vouches for a code that is not the design', { skip: browserSkip }, async () => {
    await scans().waitFor();
    const preview = section().getByRole('img', { name: `QR code for ${link.qrUrl}` });
    for (const [foreground, background, said] of [
      ['#9a9a9a', '#ffffff', /contrast is below 4\.5:1/],
      ['#ffffff', '#1b1f3b', /background is too dark/],
    ] as const) {
      await section().getByLabel('Foreground', { exact: true }).fill(foreground);
      await section().getByLabel('Background', { exact: true }).fill(background);
      await section().getByText(said).waitFor();
      await section().getByText('No code is drawn while the design has a problem').waitFor();
      assert.equal(await preview.count(), 0, 'no earlier code stands in for the refused one');
      assert.equal(
        await section()
          .getByText(/Scans to/)
          .count(),
        0,
        'and no tick',
      );
      for (const name of ['Download SVG', 'Download PNG', 'Download PDF', 'Save design']) {
        assert.equal(await section().getByRole('button', { name }).isDisabled(), true, name);
      }
    }
    await section().getByLabel('Preset').selectOption('classic');
    await scans().waitFor();
    await preview.waitFor();
  });

  test('the page says how far the print scans from, and warns below the smallest size for the distance chosen', { skip: browserSkip }, async () => {
    const reach = section().locator('.qr-reach');
    await section().getByLabel('Print size (cm)').fill('5');
    await section().getByLabel('Scanning distance').selectOption('2');
    // Framed, the code is 92% of the piece: 4.6 cm scans from 46 cm; 2 m needs 20 cm of code, a 21.8 cm piece.
    await reach.getByText('At 5 cm it scans from up to 46 cm.').waitFor();
    await reach.getByText(/Too small to scan from 2 m: .* Print it at least 21\.8 cm wide\./).waitFor();
    await section().getByLabel('Print size (cm)').fill('25');
    await reach.getByText('At 25 cm it scans from up to 2.3 m.').waitFor();
    assert.equal(await reach.getByText(/Too small/).count(), 0);
    await section().getByLabel('Print size (cm)').fill('80');
    await section().getByText('The print size must be a number of centimetres from 2 to 50').waitFor();
    assert.equal(await section().getByRole('button', { name: 'Download PDF' }).isDisabled(), true);
    assert.equal(await section().getByRole('button', { name: 'Save design' }).isDisabled(), true);
    await section().getByLabel('Print size (cm)').fill('8');
    await section().getByLabel('Call to action').fill('Scan ✨ now');
    await section().getByText('The frame cannot draw “✨”').waitFor();
    assert.equal(await section().getByLabel('Call to action').getAttribute('aria-invalid'), 'true');
    await section().getByLabel('Call to action').fill(CALL_TO_ACTION);
    await scans().waitFor();
  });

  test('a logo is said to force the highest error correction, and the code drawn with it is read at level H', { skip: browserSkip }, async () => {
    await section()
      .getByText(/With a logo the code always uses the highest error correction \(level H/)
      .waitFor();
    await section()
      .getByLabel(/^Logo/)
      .setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logoPng(128) });
    await section().getByText('logo.png, 128 × 128 pixels').waitFor();
    await scans().waitFor();
    const svg = await download(page, section().getByRole('button', { name: 'Download SVG' }));
    const scan = await scanSvg(svg.bytes.toString('utf8'));
    assert.equal(scan.zxing, link.qrUrl);
    assert.equal(scan.ecLevel, 'H');
    await section().getByRole('button', { name: 'Remove logo' }).click();
    await scans().waitFor();
  });

  test(
    'the link page with the print kit passes axe-core in light and dark mode at 1280 and 360 px, and breaks no Content-Security-Policy rule',
    { skip: browserSkip },
    async () => {
      const found = await axeInBothModes(page, 'link page at 1280 px');
      // Full pages stay in the suite's folder (looked at while writing it); the README takes the section shot.
      await page.screenshot({ path: path.join(world.shots, 'link-qr-1280.png'), fullPage: true });
      const { context: narrow, page: phone } = await newPage(world, { width: 360 });
      await signIn(phone, EMAIL, PASSWORD);
      await phone.goto(`/app/links/${link.id}`);
      await phone.getByText(`Scans to ${link.qrUrl} ✓`).waitFor();
      await phone.getByLabel('Scanning distance').selectOption('3');
      await phone.getByText(/Too small to scan from 3 m/).waitFor();
      found.push(...(await axeInBothModes(phone, 'link page at 360 px')));
      assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= 360), 'the link page fits 360 px');
      await phone.emulateMedia({ colorScheme: 'dark' });
      await phone.screenshot({ path: path.join(world.shots, 'link-qr-360-dark.png'), fullPage: true });
      await narrow.close();
      assert.deepEqual(found, []);
      assert.deepEqual(csp, []);
    },
  );

  const pdfWriterLoads = () => scripts.filter((url) => /\/assets\/qr-pdf-[^/]+\.js$/.test(url));
});

/** Every distinct fill colour (`r g b rg` or `g g`) set in the PDF's content streams. */
function fillColours(pdf: Buffer): string[] {
  const found = new Set<string>();
  for (const stream of streams(pdf)) {
    for (const [, rgb] of stream.matchAll(/(?:^|\s)([\d.]+ [\d.]+ [\d.]+) rg\b/g)) found.add(rgb!);
    for (const [, grey] of stream.matchAll(/(?:^|\s)([\d.]+) g\b/g)) found.add(`${grey} ${grey} ${grey}`);
  }
  return [...found].sort();
}

/** The PDF's streams, inflated where they are compressed (images stay binary and match nothing). */
function streams(pdf: Buffer): string[] {
  const out: string[] = [];
  let at = 0;
  for (;;) {
    const start = pdf.indexOf('stream', at, 'latin1');
    if (start < 0) return out;
    const body = start + 'stream'.length + (pdf[start + 6] === 0x0d ? 2 : 1);
    const end = pdf.indexOf('endstream', body, 'latin1');
    const raw = pdf.subarray(body, end);
    try {
      out.push(zlib.inflateSync(raw).toString('latin1'));
    } catch {
      out.push(raw.toString('latin1'));
    }
    at = end + 'endstream'.length;
  }
}
