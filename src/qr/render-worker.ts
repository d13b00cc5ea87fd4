import { parentPort } from 'node:worker_threads';
import { AppError } from '../platform/errors.js';
import { renderQr } from './render-qr.js';
import type { RenderJob, RenderResult } from './render-pool.js';

/** Draws one export per message, off the main thread (render-pool.ts says why). */
parentPort?.on('message', (job: RenderJob) => {
  let result: RenderResult;
  try {
    result = { id: job.id, svg: renderQr(job.text, job.options, job.frame) };
  } catch (error) {
    // Refusals travel as their catalog value; anything else is a fault of ours, reported as such.
    result = error instanceof AppError ? { id: job.id, refused: error.code } : { id: job.id, failed: String(error) };
  }
  parentPort?.postMessage(result);
});
