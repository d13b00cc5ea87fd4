import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness, type ApiResponse } from '../helpers/harness.js';
import { logoPng, pngDataUrl } from '../helpers/png.js';
import { scanSvg } from '../helpers/qr-scan.js';

const PRESETS = ['classic', 'sage', 'ocean', 'rose', 'clay', 'ink'];
/** Pairs whose WCAG ratio is the smallest at or above 4.5 that 8-bit colours allow (found by search). */
const AT_LIMIT = [
  { foreground: '#0b73b9', background: '#e8f4fa' }, // 4.5000005
  { foreground: '#c603c2', background: '#fff3c4' }, // 4.5000003
  { foreground: '#102cc9', background: '#b3b3b3' }, // 4.5000014, background near the lightness limit
  { foreground: '#464646', background: '#b3b3b3' }, // 4.5016, the closest grey pair
];
/** Raster width for the many style checks: enough pixels per module, little decoding time. */
const RASTER = 400;

eachDatabase('QR export API', (kind) => {
  let h: Harness;
  let key: string;
  let link: { id: string; qrUrl: string };
  before(async () => {
    h = await Harness.start(kind);
    ({ key } = await h.account());
    link = (await h.createLink({ target: 'https://example.org/poster' }, { key })).body;
  });
  after(async () => h.close());

  const exportQr = (body?: unknown, id = link.id, auth: { key?: string; headers?: Record<string, string> } = { key }) =>
    h.request('POST', `/links/${id}/qr`, { ...auth, ...(body === undefined ? {} : { body }) });

  async function assertScans(res: ApiResponse, url: string, raster?: number): Promise<string | null> {
    assert.equal(res.status, 200, res.text.slice(0, 200));
    const scan = await scanSvg(res.text, raster);
    assert.equal(scan.jsqr, url, 'jsQR reads the qrUrl');
    assert.equal(scan.zxing, url, 'zxing reads the qrUrl');
    return scan.ecLevel;
  }

  test('a POST without any body is the default export: a 768-pixel SVG at level M that scans to the qrUrl', async () => {
    const res = await exportQr();
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.match(res.text, /^<svg [^>]*width="768" height="768" viewBox="0 0 768 768"/);
    assert.equal(res.text.match(/<path /g)?.length, 1, 'all dark modules are one path');
    assert.match(res.text, /fill="#ffffff"/);
    assert.match(res.text, /<path fill="#000000"/);
    assert.equal(await assertScans(res, link.qrUrl), 'M');
  });

  test('an empty JSON object is the same default export', async () => {
    assert.equal((await exportQr({})).text, (await exportQr()).text);
  });

  test('every preset scans with both readers', async () => {
    for (const preset of PRESETS) await assertScans(await exportQr({ preset, size: 384 }), link.qrUrl, RASTER);
  });

  test('every dots × corners combination scans with both readers', async () => {
    for (const dots of ['square', 'rounded', 'dots']) {
      for (const corners of ['square', 'rounded']) await assertScans(await exportQr({ dots, corners, size: 384 }), link.qrUrl, RASTER);
    }
  });

  test('the smallest (256) and largest (2048) sizes scan at their own pixel size', async () => {
    for (const size of [256, 2048]) {
      const res = await exportQr({ size, dots: 'dots', corners: 'rounded' });
      assert.match(res.text, new RegExp(`^<svg [^>]*width="${size}" height="${size}" viewBox="0 0 ${size} ${size}"`));
      await assertScans(res, link.qrUrl);
    }
  });

  test('custom colours exactly at the 4.5 contrast limit scan with both readers', async () => {
    for (const colours of AT_LIMIT) {
      for (const dots of ['square', 'dots']) await assertScans(await exportQr({ ...colours, dots, size: 384 }), link.qrUrl, RASTER);
    }
  });

  test('an omitted colour comes from the preset', async () => {
    const res = await exportQr({ preset: 'ocean', foreground: '#000000' });
    assert.match(res.text, /<rect [^>]*fill="#e8f4fa"/);
    assert.match(res.text, /<path fill="#000000"/);
    const other = await exportQr({ preset: 'rose', background: '#FFFFFF' });
    assert.match(other.text, /<rect [^>]*fill="#ffffff"/);
    assert.match(other.text, /<path fill="#7a1f3d"/);
  });

  test('a 512×512 logo is embedded centred, switches to level H, and the code still scans', async () => {
    const logoPngUrl = pngDataUrl(logoPng(512));
    const alias = `spring-poster-campaign-2026-${'x'.repeat(12)}`;
    const long = (await h.createLink({ target: 'https://example.org/long', alias }, { key })).body;
    for (const [target, dots, corners] of [
      [link, 'square', 'square'],
      [long, 'dots', 'rounded'],
      [long, 'rounded', 'square'],
    ] as const) {
      const res = await exportQr({ logoPng: logoPngUrl, dots, corners }, target.id);
      assert.equal(res.text.match(/<image /g)?.length, 1);
      assert.ok(res.text.includes(`xlink:href="${logoPngUrl}"`), 'the logo is embedded as sent');
      assert.equal(await assertScans(res, target.qrUrl), 'H');
    }
  });

  test('exports spend nothing and create no link', async () => {
    const before = await h.request('GET', '/links', { key });
    for (let i = 0; i < 3; i++) assert.equal((await exportQr({ size: 256 })).status, 200);
    const after = await h.request('GET', '/links', { key });
    assert.deepEqual(after.body, before.body);
  });
});
