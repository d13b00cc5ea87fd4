import { isMainThread } from 'node:worker_threads';

/** The longest stretch of recording work between two yields. */
const SLICE_MS = 0.25;
/** How long a background thread sleeps when it yields. */
const REST_MS = 0.1;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
let sliceStarted = 0;

/**
 * Called often during long recording work (flush encoding, allowance grants, roll-up passes): once
 * SLICE_MS of work has gone by since the last yield, it yields. On the event loop (the recording loop
 * of an in-memory database) yielding lets redirects be served in between (setImmediate). On the
 * recording thread it sleeps for REST_MS: a thread that keeps the core only gives it up when the
 * scheduler ends its slice, and a scheduling trace of the redirect benchmark showed that thread
 * running 3 to 5 ms at a time, each run a pause of every redirect on the core (docs/benchmarks.md).
 * Sleeping is the one way to give the core back at once. Each thread has its own slice clock.
 */
export async function pace(): Promise<void> {
  if (performance.now() - sliceStarted < SLICE_MS) return;
  if (isMainThread) await new Promise<void>((resolve) => setImmediate(resolve));
  else Atomics.wait(sleeper, 0, 0, REST_MS);
  sliceStarted = performance.now();
}
