import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import { AppError } from '../../src/platform/errors.js';
import { colorProblem, contrastRatio, MIN_CONTRAST, PRESET_NAMES, PRESETS } from '../../src/qr/colors.js';
import { LOGO_AREA_FRACTION, qrMatrix } from '../../src/qr/matrix.js';
import { FRAME_CHARACTERS, undrawable } from '../../src/qr/frame-characters.js';
import { GLYPHS } from '../../src/qr/glyphs.js';
import { renderQr } from '../../src/qr/render-qr.js';
import { drawable } from '../../src/qr/text-paths.js';
import { logoPng, pngDataUrl } from '../helpers/png.js';
import { scanSvg } from '../helpers/qr-scan.js';

const URL = 'http://sho.rt/q/AbCd1234';
const LOGO = pngDataUrl(logoPng(512));

test('the six presets each pass the colour rules', () => {
  assert.deepEqual(Object.keys(PRESETS), [...PRESET_NAMES]);
  assert.deepEqual(PRESET_NAMES, ['classic', 'sage', 'ocean', 'rose', 'clay', 'ink']);
  for (const [name, { foreground, background }] of Object.entries(PRESETS)) {
    assert.equal(colorProblem(foreground, background), undefined, name);
    assert.ok(contrastRatio(foreground, background) >= 7, `${name} keeps a margin above 4.5`);
  }
});

test('contrast ratios match WCAG figures and the rules name each failure', () => {
  assert.equal(contrastRatio('#000000', '#ffffff'), 21);
  assert.equal(contrastRatio('#ffffff', '#000000'), 21);
  assert.equal(contrastRatio('#767676', '#FFFFFF').toFixed(2), '4.54');
  assert.ok(contrastRatio('#0b73b9', '#e8f4fa') - MIN_CONTRAST < 1e-6);
  assert.equal(colorProblem('#0b73b9', '#e8f4fa'), undefined);
  assert.equal(colorProblem('#777777', '#ffffff'), 'contrast below 4.5');
  assert.equal(colorProblem('#474747', '#b3b3b3'), 'contrast below 4.5');
  assert.equal(colorProblem('#000000', '#a9a9a9'), 'background is not light', 'luminance 0.397');
  assert.equal(colorProblem('#000000', '#aaaaaa'), undefined, 'luminance 0.402');
  assert.equal(colorProblem('#ffffff', '#ffffff'), 'foreground is not darker than background');
  assert.equal(colorProblem('#fff', '#ffffff'), 'colours must be #rrggbb');
});

test('refusals are AppError invalid_request, even from in-process callers the schema does not guard', () => {
  const refused = (options: object) =>
    assert.throws(
      () => renderQr(URL, options),
      (e) => e instanceof AppError && e.code === 'invalid_request',
    );
  for (const size of [255, 2049, 300.5, Number.NaN]) refused({ size });
  refused({ foreground: '#888888' });
  refused({ preset: 'neon' });
  refused({ preset: 'toString' });
  refused({ dots: 'hex' });
  refused({ logoPng: 'data:image/png;base64,AAAA' });
});

test('the SVG is one path of dark modules in a document whose width, height and viewBox are the size', () => {
  for (const size of [256, 333, 768, 2048]) {
    for (const dots of ['square', 'rounded', 'dots'] as const) {
      const svg = renderQr(URL, { size, dots, corners: 'rounded' });
      assert.match(svg, new RegExp(`^<svg [^>]*width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">`));
      assert.equal(svg.match(/<path /g)?.length, 1);
      assert.equal(svg.match(/<[a-z]+ /g)?.length, 4, 'svg, background rect, group, path: nothing per module');
    }
  }
  assert.equal(renderQr(URL), renderQr(URL, { preset: 'classic', size: 768, dots: 'square', corners: 'square' }), 'defaults');
});

test('four modules of quiet zone stay background on every side', () => {
  const svg = renderQr(URL, { size: 768, preset: 'ink' });
  const scale = Number(/scale\(([\d.]+)\)/.exec(svg)![1]);
  const image = new Resvg(svg).render();
  const border = Math.floor(4 * scale);
  const [w, px] = [image.width, image.pixels];
  let dark = 0;
  for (let y = 0; y < w; y++) {
    for (let x = 0; x < w; x++) {
      const inside = x >= border && y >= border && x < w - border && y < w - border;
      if (!inside && px[(y * w + x) * 4] !== 0xf5) dark++;
    }
  }
  assert.equal(dark, 0);
  assert.notEqual(px[(Math.ceil(4 * scale) * w + Math.ceil(4 * scale)) * 4], 0xf5, 'the finder starts right after it');
});

test('the logo area is centred, a quarter of the side at most, clear of finders and timing, and empty', () => {
  for (const text of [URL, `http://sho.rt/q/${'x'.repeat(40)}`, `https://links.example.com/q/${'y'.repeat(200)}`]) {
    const m = qrMatrix(text, true);
    const area = m.logoArea!;
    assert.equal(area.start * 2 + area.side, m.size, 'centred');
    assert.ok(area.side <= m.size * LOGO_AREA_FRACTION && area.side % 2 === 1);
    assert.ok(area.start > 8 && area.start + area.side < m.size - 8, 'clear of finders, separators, format and timing');
    for (let r = area.start; r < area.start + area.side; r++) for (let c = area.start; c < area.start + area.side; c++) assert.equal(m.isDark(r, c), false);
    const svg = renderQr(text, { logoPng: LOGO });
    assert.match(svg, new RegExp(`<image x="${area.start + 0.5}" y="${area.start + 0.5}" width="${area.side - 1}" height="${area.side - 1}"`));
  }
  assert.equal(qrMatrix(URL, false).logoArea, undefined);
});

test('codes of every length a link can have scan with both readers, with and without a logo, in every style', async () => {
  const styles = [
    { dots: 'square', corners: 'square' },
    { dots: 'rounded', corners: 'rounded', logoPng: LOGO },
    { dots: 'dots', corners: 'rounded', logoPng: LOGO },
    { dots: 'dots', corners: 'square' },
    { dots: 'square', corners: 'rounded', logoPng: LOGO, preset: 'clay' },
  ] as const;
  for (const length of [8, 20, 40, 80, 140, 220]) {
    const text = `https://go.example.com/q/${'Ab3'.repeat(80).slice(0, length)}`;
    for (const style of styles) {
      const scan = await scanSvg(renderQr(text, { ...style, size: 512 }));
      assert.deepEqual([scan.jsqr, scan.zxing], [text, text], `${length} ${style.dots}/${style.corners}${'logoPng' in style ? ' + logo' : ''}`);
      assert.equal(scan.ecLevel, 'logoPng' in style ? 'H' : 'M');
    }
  }
});

test('the frame’s character list, which the website checks against, is exactly the characters with outlines', () => {
  assert.deepEqual([...FRAME_CHARACTERS].sort(), Object.keys(GLYPHS).sort());
  assert.deepEqual(undrawable('Scan ✨ for the menu ✨ →'), ['✨']);
  assert.equal(drawable('Scan ✨'), false);
});
