import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { pace } from '../src/store/pace.js';

test('on the event loop, long recording work lets other callbacks run in between', async () => {
  let ticks = 0;
  let stop = false;
  const spin = () => {
    ticks++;
    if (!stop) setImmediate(spin);
  };
  setImmediate(spin);
  // Busy work (up to 2 s of it) calling pace() all along, until others have had 20 turns.
  const deadline = performance.now() + 2000;
  while (ticks < 20 && performance.now() < deadline) await pace();
  stop = true;
  // Without pacing the loop never lets them run, and gives up after 2 s with none.
  assert.ok(ticks >= 20, `other callbacks ran ${ticks} times during 2 s of paced work`);
});

test('on a background thread, long recording work sleeps between slices (the core is given back)', async () => {
  // Time spent inside pace() during paced work (up to 2 s): the sleeps; a yield that does not sleep takes microseconds.
  const code = `
    const { parentPort } = require('node:worker_threads');
    import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify('PACE')}); }).then(async ({ pace }) => {
      const started = performance.now();
      let sleptMs = 0;
      while (sleptMs < 10 && performance.now() - started < 2000) {
        const t = performance.now();
        await pace();
        const d = performance.now() - t;
        if (d >= 0.05) sleptMs += d;
      }
      parentPort.postMessage(sleptMs);
    });`;
  const worker = new Worker(code.replace('PACE', new URL('../src/store/pace.ts', import.meta.url).href), { eval: true });
  const slept = await new Promise<number>((resolve, reject) => worker.once('message', resolve).once('error', reject));
  await worker.terminate();
  // About 0.1 ms of sleep per 0.25 ms of work: 10 ms within about 40 ms; none without pacing.
  assert.ok(slept >= 10, `slept ${slept.toFixed(1)} ms in 2 s of paced work`);
});
