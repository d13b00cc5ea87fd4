import { parentPort } from 'node:worker_threads';
import { AppError } from '../platform/errors.js';
import { renderedBytes, type RenderJob, type RenderResult } from './render-pool.js';

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
