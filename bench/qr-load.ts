/**
 * Redirect latency while QR exports run: p50/p99 of sequential redirects alone, then while eight
 * clients keep exporting 2048-pixel codes with a 512×512 logo in parallel (the hostile case of
 * issue 44), with the exports finished per second meanwhile.
 * One process on SQLite, through real HTTP on localhost; the load generator shares the machine, so
 * figures are for comparison between the two phases and between builds, not absolute.
 * `npm run bench:qr-load`; `BENCH_ROUNDS` (3), `BENCH_REDIRECTS` per phase (2000), `BENCH_LOGO_CHARS`
 * (a logo padded to that data-URL length, up to API.md's 700000; default the plain logo, 9118).
 */
import { Worker } from 'node:worker_threads';
import { Harness } from '../test/helpers/harness.js';
import { logoDataUrlOfLength, logoPng, pngDataUrl } from '../test/helpers/png.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REDIRECTS = Number(process.env.BENCH_REDIRECTS ?? 2000);
const LOGO_CHARS = process.env.BENCH_LOGO_CHARS ? Number(process.env.BENCH_LOGO_CHARS) : undefined;
const h = await Harness.start('sqlite');
const { key } = await h.account();
const link = (await h.createLink({ target: 'https://example.org/bench' }, { key })).body as { id: string; slug: string };
const logo = LOGO_CHARS ? logoDataUrlOfLength(512, LOGO_CHARS) : pngDataUrl(logoPng(512));

interface Phase {
  p50: number;
  p99: number;
}

async function redirects(): Promise<Phase> {
  const times: number[] = [];
  for (let i = 0; i < REDIRECTS; i++) {
    const start = performance.now();
    const res = await fetch(`${h.baseUrl}/s/${link.slug}`, { redirect: 'manual' });
    await res.arrayBuffer();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)]!, p99: times[Math.floor(times.length * 0.99)]! };
}

/**
 * The exporting clients run in a thread of their own, so their JSON and bodies cost the server's
 * thread nothing. 'count' asks how many exports have finished; 'stop' lets the running ones finish.
 */
const CLIENTS = `
const { workerData, parentPort } = require('node:worker_threads');
let exporting = true, exports = 0;
parentPort.on('message', (m) => { if (m === 'stop') exporting = false; else parentPort.postMessage(exports); });
const body = JSON.stringify({ size: 2048, dots: 'dots', logoPng: workerData.logo });
const one = async () => { while (exporting) {
  const res = await fetch(workerData.url, { method: 'POST', body, headers: { authorization: 'Bearer ' + workerData.key, 'content-type': 'application/json' } });
  const svg = await res.text(); if (res.status !== 200 || !svg.endsWith('</svg>')) throw new Error('export answered ' + res.status); exports++; } };
Promise.all(Array.from({ length: 8 }, one)).then(() => parentPort.postMessage('stopped'));
`;

async function loaded(): Promise<Phase & { exportsPerSecond: number }> {
  const clients = new Worker(CLIENTS, { eval: true, workerData: { url: `${h.baseUrl}/api/v1/links/${link.id}/qr`, key, logo } });
  const count = () => new Promise<number>((resolve) => (clients.once('message', resolve), clients.postMessage('count')));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const [before, start] = [await count(), performance.now()];
  const phase = await redirects();
  const [after, end] = [await count(), performance.now()];
  const stopped = new Promise((resolve) => clients.once('message', resolve));
  clients.postMessage('stop');
  await stopped;
  await clients.terminate();
  return { ...phase, exportsPerSecond: ((after - before) * 1000) / (end - start) };
}

const ms = (v: number) => `${v.toFixed(2)} ms`;
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
await redirects(); // warm-up
const rows: string[] = [];
const p99s: { alone: number[]; loaded: number[]; rate: number[] } = { alone: [], loaded: [], rate: [] };
for (let round = 1; round <= ROUNDS; round++) {
  const alone = await redirects();
  const busy = await loaded();
  p99s.alone.push(alone.p99);
  p99s.loaded.push(busy.p99);
  p99s.rate.push(busy.exportsPerSecond);
  rows.push(`| ${round} | alone | ${ms(alone.p50)} | ${ms(alone.p99)} | |`);
  rows.push(`| ${round} | 8 exports | ${ms(busy.p50)} | ${ms(busy.p99)} | ${busy.exportsPerSecond.toFixed(0)} |`);
}
await h.close();
console.log(`logo data URL: ${logo.length} characters; ${REDIRECTS} sequential redirects per phase`);
console.log('| round | phase | redirect p50 | redirect p99 | exports/s |\n|---|---|---|---|---|');
console.log(rows.join('\n'));
console.log(
  `median over ${ROUNDS} rounds: redirect p99 ${ms(median(p99s.alone))} alone, ${ms(median(p99s.loaded))} with the exports, ${median(p99s.rate).toFixed(0)} exports/s`,
);
