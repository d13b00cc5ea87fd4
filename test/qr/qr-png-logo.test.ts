import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { parsePngLogo, tableCrc32 } from '../../src/qr/png-logo.js';
import { encodePng, logoDataUrlOfLength, logoPng, PNG_SIGNATURE, pngChunk as chunk, pngDataUrl } from '../helpers/png.js';

/** PNGs are rebuilt from chunks here, so tests can reorder, drop or corrupt them with valid CRCs. */
function ihdr(width: number, height: number, depth = 8, colorType = 6, interlace = 0): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data.set([depth, colorType, 0, 0, interlace], 8);
  return chunk('IHDR', data);
}
const idat = chunk('IDAT', zlib.deflateSync(Buffer.alloc(5)));
const iend = chunk('IEND', Buffer.alloc(0));
const file = (...chunks: Buffer[]) => pngDataUrl(Buffer.concat([PNG_SIGNATURE, ...chunks]));

test('a real PNG data URL is accepted with its dimensions, and embedded unchanged', () => {
  const url = pngDataUrl(logoPng(512));
  assert.deepEqual(parsePngLogo(url), { dataUrl: url, width: 512, height: 512 });
  assert.deepEqual(parsePngLogo(pngDataUrl(encodePng(3, 7, () => [1, 2, 3, 4])))?.width, 3);
});

test('every legal colour type, bit depth and interlace method is accepted', () => {
  for (const [depth, type] of [
    [1, 0],
    [16, 0],
    [8, 2],
    [4, 3],
    [8, 4],
    [16, 6],
  ] as const) {
    assert.ok(parsePngLogo(file(ihdr(4, 4, depth, type), idat, iend)), `depth ${depth} type ${type}`);
  }
  assert.ok(parsePngLogo(file(ihdr(4, 4, 8, 6, 1), idat, iend)), 'Adam7 interlace');
});

test('structurally broken PNGs are refused', () => {
  const cases: Record<string, string> = {
    'IHDR not first': file(chunk('tEXt', Buffer.from('a\0b')), ihdr(4, 4), idat, iend),
    'no IDAT': file(ihdr(4, 4), iend),
    'no IEND': file(ihdr(4, 4), idat),
    'bytes after IEND': file(ihdr(4, 4), idat, iend, Buffer.from([0])),
    'second IHDR': file(ihdr(4, 4), ihdr(4, 4), idat, iend),
    'zero width': file(ihdr(0, 4), idat, iend),
    'illegal bit depth': file(ihdr(4, 4, 16, 3), idat, iend),
    'unknown colour type': file(ihdr(4, 4, 8, 5), idat, iend),
    'unknown interlace': file(ihdr(4, 4, 8, 6, 2), idat, iend),
    'chunk type not letters': file(ihdr(4, 4), chunk('ID4T', Buffer.alloc(1)), idat, iend),
    'chunk longer than the file': file(ihdr(4, 4), idat.subarray(0, idat.length - 1), iend),
  };
  for (const [name, url] of Object.entries(cases)) assert.equal(parsePngLogo(url), undefined, name);
});

test('dimensions above 512 on either side are refused; 512 is the limit', () => {
  assert.ok(parsePngLogo(file(ihdr(512, 512), idat, iend)));
  for (const [w, h] of [
    [513, 512],
    [512, 513],
    [100_000, 1],
    [2 ** 31, 2 ** 31],
  ])
    assert.equal(parsePngLogo(file(ihdr(w!, h!), idat, iend)), undefined, `${w}×${h}`);
});

test('only canonical base64 after the exact lowercase prefix is accepted', () => {
  const b64 = logoPng(8).toString('base64');
  assert.ok(parsePngLogo(`data:image/png;base64,${b64}`));
  for (const url of [
    `data:image/png;base64,${b64.replace(/=+$/, '')}`,
    `data:image/png;base64,${b64.slice(0, 20)}\n${b64.slice(20)}`,
    `data:image/png;base64,${b64.replaceAll('+', '-')}${b64.includes('+') ? '' : '-'}`,
    `data:image/PNG;base64,${b64}`,
    `data:image/png;charset=utf-8;base64,${b64}`,
  ]) {
    assert.equal(parsePngLogo(url), undefined, url.slice(0, 40));
  }
});

test('the data URL may be at most 700000 characters', () => {
  assert.ok(parsePngLogo(logoDataUrlOfLength(16, 699_998)));
  assert.equal(parsePngLogo(logoDataUrlOfLength(16, 700_002)), undefined);
});

test('the portable CRC-32 (for Node before 20.15) agrees with zlib', () => {
  for (const length of [0, 1, 13, 4096]) {
    const bytes = crypto.randomBytes(length);
    assert.equal(tableCrc32(bytes), zlib.crc32(bytes), `${length} bytes`);
  }
});
