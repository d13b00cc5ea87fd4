import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { logoPng, pngDataUrl } from '../helpers/png.js';
import { scanSvg } from '../helpers/qr-scan.js';

const DESIGN = { preset: 'ocean', dots: 'rounded', corners: 'rounded', size: 640, callToAction: 'Scan for the menu', printShortUrl: true, printSizeCm: 8 };

eachDatabase('saved QR designs', (kind) => {
  let h: Harness;
  let key: string;
  let accountId: string;
  let link: { id: string; qrUrl: string; shortUrl: string; version: number };
  before(async () => {
    h = await Harness.start(kind);
    ({ key, accountId } = await h.account());
    link = (await h.createLink({ target: 'https://example.org/menu' }, { key })).body;
  });
  after(async () => h.close());

  const getDesign = (id = link.id, k = key) => h.request('GET', `/links/${id}/qr/design`, { key: k });
  const saveDesign = (body: unknown, id = link.id, k = key) => h.request('PUT', `/links/${id}/qr/design`, { key: k, body });
  const exportQr = (body?: unknown, id = link.id) => h.request('POST', `/links/${id}/qr`, { key, ...(body === undefined ? {} : { body }) });

  test('before anything is saved the design is the defaults and saved is false', async () => {
    const res = await getDesign();
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.saved, false);
    assert.deepEqual(res.body.design, {
      preset: 'classic',
      size: 768,
      dots: 'square',
      corners: 'square',
      callToAction: '',
      printShortUrl: false,
      printSizeCm: 5,
    });
  });

  test('a saved design is read back with its defaults filled in', async () => {
    const saved = await saveDesign(DESIGN);
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.saved, true);
    const res = await getDesign();
    assert.deepEqual(res.body.design, DESIGN);
    assert.equal(res.body.saved, true);
    assert.equal(typeof res.body.updatedAt, 'number');
  });

  test('an export without a body draws the saved design: framed, the short URL under it, and it scans with two readers', async () => {
    const res = await exportQr();
    assert.equal(res.status, 200, res.text);
    const [, width, height] = /^<svg [^>]*width="(\d+)" height="(\d+)"/.exec(res.text)!.map(Number);
    assert.equal(width, 640);
    assert.ok(height! > width, 'the frame band and the caption make it taller');
    assert.match(res.text, /<rect [^>]*fill="#e8f4fa"/, 'the preset’s background');
    assert.doesNotMatch(res.text, /<text/, 'text is drawn as outlines, never as font text');
    const scan = await scanSvg(res.text);
    assert.equal(scan.jsqr, link.qrUrl);
    assert.equal(scan.zxing, link.qrUrl);
  });

  test('an export with a body, even {}, draws that body at its defaults as before', async () => {
    const res = await exportQr({});
    assert.match(res.text, /^<svg [^>]*width="768" height="768" viewBox="0 0 768 768"/);
    assert.match(res.text, /<path fill="#000000"/);
  });

  test('a saved logo forces level H and keeps under a quarter of the code', async () => {
    const logo = pngDataUrl(logoPng(256));
    assert.equal((await saveDesign({ ...DESIGN, logoPng: logo })).status, 200);
    const res = await exportQr();
    const scan = await scanSvg(res.text);
    assert.equal(scan.zxing, link.qrUrl);
    assert.equal(scan.ecLevel, 'H');
    assert.ok(res.text.includes(logo));
    assert.equal((await saveDesign(DESIGN)).status, 200);
  });

  test('a design the export would refuse is refused with 400 and the saved one stays', async () => {
    for (const bad of [{ background: '#222222' }, { callToAction: 'Scan ✨ now' }, { callToAction: 'x'.repeat(41) }, { printSizeCm: 1 }, { frame: true }]) {
      const res = await saveDesign({ ...DESIGN, ...bad });
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.deepEqual(res.body, { error: 'invalid_request' });
    }
    assert.deepEqual((await getDesign()).body.design, DESIGN);
  });

  test('a preview draws a design as its save would, framed, and stores nothing', async () => {
    const draft = { ...DESIGN, preset: 'rose', callToAction: 'Scan for the wine list' };
    const res = await h.request('POST', `/links/${link.id}/qr/design/preview`, { key, body: draft });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml');
    assert.match(res.text, /<rect [^>]*fill="#fdf0f3"/, 'the draft’s preset');
    assert.ok(Number(/height="(\d+)"/.exec(res.text)![1]) > 640, 'framed, with the short URL under it');
    const scan = await scanSvg(res.text);
    assert.deepEqual([scan.jsqr, scan.zxing], [link.qrUrl, link.qrUrl]);
    assert.deepEqual((await getDesign()).body.design, DESIGN, 'nothing saved');
    const bad = await h.request('POST', `/links/${link.id}/qr/design/preview`, { key, body: { ...DESIGN, callToAction: 'Scan ✨ now' } });
    assert.equal(bad.status, 400);
    const readOnly = await h.keyFor(accountId, 'qr:read');
    assert.equal((await h.request('POST', `/links/${link.id}/qr/design/preview`, { key: readOnly, body: DESIGN })).status, 200, 'qr:read is enough');
  });

  test('saving needs links:write; reading needs qr:read; other accounts see 404', async () => {
    const readOnly = await h.keyFor(accountId, 'qr:read');
    assert.equal((await saveDesign(DESIGN, link.id, readOnly)).status, 403);
    assert.equal((await getDesign(link.id, readOnly)).status, 200);
    const stranger = (await h.account()).key;
    assert.equal((await getDesign(link.id, stranger)).status, 404);
    assert.equal((await saveDesign(DESIGN, link.id, stranger)).status, 404);
  });

  test('a paused link’s design cannot be saved (409), like its export', async () => {
    const other = (await h.createLink({ target: 'https://example.org/paused' }, { key })).body;
    const paused = await h.request('PATCH', `/links/${other.id}`, { key, body: { version: other.version, status: 'paused' } });
    assert.equal(paused.status, 200, paused.text);
    assert.equal((await saveDesign(DESIGN, other.id)).status, 409);
  });
});
