/**
 * Redirect latency while QR exports run: p50/p99 of sequential redirects alone, then while eight
 * clients keep exporting 2048-pixel codes with a 512×512 logo in parallel (the hostile case of
 * issue 44). One process on SQLite, through real HTTP on localhost; the load generator shares the
 * machine, so figures are for comparison between the two phases, not absolute.
 * `npm run bench:qr-load`
 */
import { Worker } from 'node:worker_threads';
import { Harness } from '../test/helpers/harness.js';
import { logoPng, pngDataUrl } from '../test/helpers/png.js';

const REDIRECTS = 2000;
const h = await Harness.start('sqlite');
const { key } = await h.account();
const link = (await h.createLink({ target: 'https://example.org/bench' }, { key })).body as { id: string; slug: string };
const logo = pngDataUrl(logoPng(512));

async function redirects(): Promise<{ p50: number; p99: number }> {
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

/** The exporting clients run in a thread of their own, so their JSON and bodies cost the server's thread nothing. */
const CLIENTS = `
const { workerData, parentPort } = require('node:worker_threads');
let exporting = true, exports = 0;
parentPort.on('message', () => { exporting = false; });
const body = JSON.stringify({ size: 2048, dots: 'dots', logoPng: workerData.logo });
const one = async () => { while (exporting) {
  const res = await fetch(workerData.url, { method: 'POST', body, headers: { authorization: 'Bearer ' + workerData.key, 'content-type': 'application/json' } });
  await res.arrayBuffer(); if (res.status !== 200) throw new Error('export answered ' + res.status); exports++; } };
Promise.all(Array.from({ length: 8 }, one)).then(() => parentPort.postMessage(exports));
`;

await redirects(); // warm-up
const alone = await redirects();
const clients = new Worker(CLIENTS, { eval: true, workerData: { url: `${h.baseUrl}/api/v1/links/${link.id}/qr`, key, logo } });
const done = new Promise<number>((resolve) => clients.once('message', resolve));
await new Promise((resolve) => setTimeout(resolve, 500));
const loaded = await redirects();
clients.postMessage('stop');
const exports = await done;
await clients.terminate();
await h.close();
const ms = (v: number) => `${v.toFixed(2)} ms`;
console.log('| phase | redirect p50 | redirect p99 |\n|---|---|---|');
console.log(`| redirects alone | ${ms(alone.p50)} | ${ms(alone.p99)} |`);
console.log(`| with 8 parallel 2048-px logo exports (${exports} done) | ${ms(loaded.p50)} | ${ms(loaded.p99)} |`);
