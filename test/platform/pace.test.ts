import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pace } from '../../src/platform/database/pace.js';

/**
 * On a background thread pace() sleeps instead (Atomics.wait): that it gives the core back shows in a
 * scheduling trace (docs/benchmarks.md, fifth session), not in a test: time-based checks of sleeping
 * could not be told from preemption on a loaded machine.
 */
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
