import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import jsQRModule from 'jsqr';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

// jsqr is a UMD bundle whose module.exports is the function itself; its typings claim a default export.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

// Nothing may be fetched here: hand zxing its wasm from node_modules instead of its default CDN.
const wasmPath = createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm');
const wasm = fs.readFileSync(wasmPath);
prepareZXingModule({ overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) } });

export interface ScanResult {
  jsqr: string | null;
  zxing: string | null;
  /** Error-correction level zxing read from the format information ("M", "H", …). */
  ecLevel: string | null;
}

/**
 * Rasterises an SVG as a printer or screen would (resvg, anti-aliased) and reads it with two
 * independent decoders. Neither is told to invert colours or to try harder than a phone would.
 * `width` is the raster width in pixels (default: the SVG's own size).
 */
export async function scanSvg(svg: string, width?: number): Promise<ScanResult> {
  const fitTo = width === undefined ? ({ mode: 'original' } as const) : ({ mode: 'width', value: width } as const);
  const image = new Resvg(svg, { fitTo, font: { loadSystemFonts: false } }).render();
  const pixels = new Uint8ClampedArray(image.pixels.buffer, image.pixels.byteOffset, image.pixels.byteLength);
  const fromJsqr = jsQR(pixels, image.width, image.height, { inversionAttempts: 'dontInvert' });
  const fromZxing = await readBarcodes(new Uint8Array(image.asPng()), { formats: ['QRCode'], tryHarder: false, tryInvert: false, maxNumberOfSymbols: 1 });
  return { jsqr: fromJsqr?.data ?? null, zxing: fromZxing[0]?.text ?? null, ecLevel: fromZxing[0]?.ecLevel ?? null };
}

/**
 * Reads a PNG file with the same two decoders, at its own pixels: wrapped as the only content of an
 * SVG of its size, which resvg draws one to one.
 */
export async function scanPng(png: Buffer): Promise<ScanResult> {
  const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><image href="data:image/png;base64,${png.toString('base64')}" width="${width}" height="${height}"/></svg>`;
  return scanSvg(svg);
}
