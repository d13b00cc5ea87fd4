/**
 * The load generator of bench/qr-load.ts, in a process of its own on core 1: p50/p99 of sequential
 * redirects alone, then while eight clients keep exporting 2048-pixel codes with a 512×512 logo in
 * parallel, with the exports finished per second meanwhile. Prints the table of rounds.
 * Reads the service's URL, key, link and the settings from its environment.
 */
import { Worker } from 'node:worker_threads';
import { logoDataUrlOfLength, logoPng, pngDataUrl } from '../../test/helpers/png.js';

const { BENCH_URL: url, BENCH_KEY: key, BENCH_LINK_ID: linkId, BENCH_SLUG: slug } = process.env;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REDIRECTS = Number(process.env.BENCH_REDIRECTS ?? 2000);
const LOGO_CHARS = process.env.BENCH_LOGO_CHARS ? Number(process.env.BENCH_LOGO_CHARS) : undefined;
const logo = LOGO_CHARS ? logoDataUrlOfLength(512, LOGO_CHARS) : pngDataUrl(logoPng(512));

interface Phase {
  p50: number;
  p99: number;
}

async function redirects(): Promise<Phase> {
  const times: number[] = [];
  for (let i = 0; i < REDIRECTS; i++) {
    const start = performance.now();
    const res = await fetch(`${url}/s/${slug}`, { redirect: 'manual' });
    await res.arrayBuffer();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)]!, p99: times[Math.floor(times.length * 0.99)]! };
}

/**
 * The exporting clients run in a thread of their own, so their JSON and bodies never hold up the
 * timing of a redirect in this thread's event loop. They ask for compressed answers as a browser does
 * and keep the bytes as they come (node:http, unlike fetch, does not decompress): decompressing three
 * hundred large SVGs a second would take the client's core from the redirect timing, which measures
 * the service. Each answer is checked for its status, type and length; every 50th is decompressed and
 * checked to be a whole SVG. 'count' asks how many exports have finished; 'stop' lets the running
 * ones finish.
 */
const CLIENTS = `
const { workerData, parentPort } = require('node:worker_threads');
const http = require('node:http');
const zlib = require('node:zlib');
let exporting = true, exports = 0;
parentPort.on('message', (m) => { if (m === 'stop') exporting = false; else parentPort.postMessage(exports); });
const body = JSON.stringify({ size: 2048, dots: 'dots', logoPng: workerData.logo });
const agent = new http.Agent({ keepAlive: true });
const headers = { authorization: 'Bearer ' + workerData.key, 'content-type': 'application/json', 'accept-encoding': 'br, gzip', 'content-length': Buffer.byteLength(body) };
const post = () => new Promise((resolve, reject) => {
  const req = http.request(workerData.url, { method: 'POST', agent, headers }, (res) => {
    const chunks = [];
    res.on('data', (chunk) => chunks.push(chunk));
    res.on('end', () => resolve({ res, bytes: Buffer.concat(chunks) }));
    res.on('error', reject);
  });
  req.on('error', reject);
  req.end(body);
});
const one = async () => { while (exporting) {
  const { res, bytes } = await post();
  const whole = res.statusCode === 200 && res.headers['content-type'] === 'image/svg+xml' && bytes.length === Number(res.headers['content-length']);
  if (!whole) throw new Error('export answered ' + res.statusCode + ' ' + res.headers['content-type'] + ', ' + bytes.length + ' bytes');
  if (exports % 50 === 0) {
    const svg = (res.headers['content-encoding'] === 'br' ? zlib.brotliDecompressSync(bytes) : zlib.gunzipSync(bytes)).toString();
    if (!svg.endsWith('</svg>')) throw new Error('an export is not a whole SVG');
  }
  exports++; } };
Promise.all(Array.from({ length: 8 }, one)).then(() => parentPort.postMessage('stopped'));
`;

async function loaded(): Promise<Phase & { exportsPerSecond: number }> {
  const clients = new Worker(CLIENTS, { eval: true, workerData: { url: `${url}/api/v1/links/${linkId}/qr`, key, logo } });
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
console.log(`logo data URL: ${logo.length} characters; ${REDIRECTS} sequential redirects per phase`);
console.log('| round | phase | redirect p50 | redirect p99 | exports/s |\n|---|---|---|---|---|');
console.log(rows.join('\n'));
console.log(
  `median over ${ROUNDS} rounds: redirect p99 ${ms(median(p99s.alone))} alone, ${ms(median(p99s.loaded))} with the exports, ${median(p99s.rate).toFixed(0)} exports/s`,
);
