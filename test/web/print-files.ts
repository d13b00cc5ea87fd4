import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * Why the downloaded PDFs cannot be read here, or undefined: pdftoppm and pdfinfo (Debian's
 * poppler-utils) render them and read their page size. CI installs them (.ci/run) and must not skip.
 */
export const popplerMissing: string | undefined = (() => {
  if (fs.existsSync('/usr/bin/pdftoppm') && fs.existsSync('/usr/bin/pdfinfo')) return undefined;
  const reason = 'pdftoppm and pdfinfo are absent (apt-get install -y poppler-utils)';
  if (process.env.CI === 'true') throw new Error(`${reason}; CI requires them`);
  console.log(`skipping the PDF checks: ${reason}`);
  return reason;
})();

/** The first page's width and height in points, as pdfinfo reads them. */
export function pdfPageSize(file: string): { width: number; height: number } {
  const [width, height] = /Page size:\s+([\d.]+) x ([\d.]+) pts/
    .exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))!
    .slice(1)
    .map(Number);
  return { width: width!, height: height! };
}

/** The PDF's one page rendered by pdftoppm at `dpi`, as a PNG file beside it (its name with `.png`), and its bytes. */
export function renderPdf(file: string, dpi: number): Buffer {
  const out = file.replace(/\.pdf$/, '');
  execFileSync('pdftoppm', ['-png', '-r', String(dpi), '-singlefile', file, out]);
  return fs.readFileSync(`${out}.png`);
}

/** A PDF length in centimetres. */
export const cmOfPoints = (points: number): number => (points / 72) * 2.54;

/** The pHYs chunk of a PNG: pixels per unit (the same both ways here) and the unit (1: metre). */
export function pngDensity(png: Buffer): { perMetre: number; unit: number } | undefined {
  const at = png.indexOf('pHYs', 8, 'latin1');
  if (at < 0) return undefined;
  assert.equal(png.readUInt32BE(at + 4), png.readUInt32BE(at + 8));
  return { perMetre: png.readUInt32BE(at + 4), unit: png[at + 12]! };
}
