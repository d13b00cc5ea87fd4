import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { AppError } from '../platform/errors.js';
import { renderedBytes, type RenderJob, type RenderResult } from './render-pool.js';

/**
 * The worker thread runs at a lower scheduling priority than the event loop (on Linux the nice value
 * is per thread, and 0 names the calling one): on a busy machine a redirect's thread then takes a
 * core as soon as it wakes instead of waiting behind exports, which use what the rest leave.
 */
const RENDER_NICE = 10;
try {
  os.setPriority(0, RENDER_NICE);
} catch {
  // A system that refuses (or lacks) thread priorities renders at the usual one.
}

/** Draws and compresses one export per message, off the main thread (render-pool.ts says why). */
parentPort?.on('message', (job: RenderJob) => {
  let bytes: Uint8Array;
  try {
    bytes = renderedBytes(job);
  } catch (error) {
    // Refusals travel as their catalog value; anything else is a fault of ours, reported as such.
    const result: RenderResult = error instanceof AppError ? { id: job.id, refused: error.code } : { id: job.id, failed: String(error) };
    return parentPort?.postMessage(result);
  }
  // Handed over, not copied: the buffer is the answer's alone (renderedBytes).
  parentPort?.postMessage({ id: job.id, bytes } satisfies RenderResult, [bytes.buffer as ArrayBuffer]);
});
