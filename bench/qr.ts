/**
 * QR export render time, in-process (no HTTP): p50/p99 of `renderQr` for the default export, a styled
 * one and logo exports, next to the baselines of the encoder alone (`qrcode`'s create) and of
 * `qrcode`'s own SVG output. Run: npm run bench:qr
 */
import { performance } from 'node:perf_hooks';
import QRCode from 'qrcode';
import { renderQr, type QrOptions } from '../src/qr/render-qr.js';
import { logoDataUrlOfLength, logoPng, pngDataUrl } from '../test/helpers/png.js';

const URL = 'https://links.example.com/q/AbCd1234';
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 2000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(name: string, run: () => unknown): Promise<void> {
  for (let i = 0; i < Math.min(200, ITERATIONS); i++) await run(); // warm-up: JIT and caches
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const [p50, p99] = [percentile(times, 50), percentile(times, 99)];
  console.log(`| ${name} | ${p50.toFixed(3)} | ${p99.toFixed(3)} | ${Math.round(1000 / p50)} |`);
}

const typicalLogo = pngDataUrl(logoPng(512));
const largestLogo = logoDataUrlOfLength(512, 699_998);
const cases: [string, QrOptions][] = [
  ['renderQr default (768 px, level M)', {}],
  ['renderQr dots + rounded corners, 2048 px', { dots: 'dots', corners: 'rounded', size: 2048 }],
  [`renderQr 512×512 logo (${Math.round(typicalLogo.length / 1000)} k chars, level H)`, { logoPng: typicalLogo }],
  ['renderQr 512×512 logo at the 700 000-char limit', { logoPng: largestLogo }],
];

console.log(`node ${process.version}, ${ITERATIONS} runs each, URL ${URL}\n`);
console.log('| case | p50 ms | p99 ms | per second (1 core, at p50) |');
console.log('|---|---|---|---|');
await measure('baseline: qrcode create() only (matrix, level M)', () => QRCode.create(URL, { errorCorrectionLevel: 'M' }));
await measure("baseline: qrcode toString({ type: 'svg' })", () => QRCode.toString(URL, { type: 'svg', errorCorrectionLevel: 'M' }));
for (const [name, options] of cases) await measure(name, () => renderQr(URL, options));
