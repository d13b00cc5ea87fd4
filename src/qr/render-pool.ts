import fs from 'node:fs';
import os from 'node:os';
import { renderQr } from './render-qr.js';
import { Worker } from 'node:worker_threads';
import { AppError, type ErrorCode } from '../platform/errors.js';
import { encodeSync, type Encoding } from '../platform/http/encodings.js';
import type { QrFrame } from './frame.js';
import type { QrOptions } from './render-qr.js';

export interface RenderJob {
  id: number;
  text: string;
  options: QrOptions;
  frame: QrFrame;
  /** How the answer is to be compressed; none when undefined. */
  encoding?: Encoding;
}
export type RenderResult = { id: number; bytes: Uint8Array } | { id: number; refused: ErrorCode } | { id: number; failed: string };

/** An export's answer: the SVG document's bytes, compressed with `encoding` when it is set. */
export interface RenderedQr {
  bytes: Buffer;
  encoding?: Encoding;
}

interface Pending {
  job: RenderJob;
  resolve: (rendered: RenderedQr) => void;
  reject: (error: Error) => void;
}

/**
 * The SVG drawn and encoded, in bytes whose buffer is theirs alone, so that the worker can hand the
 * buffer over (a transfer) rather than have it copied into the main thread.
 */
export function renderedBytes(job: RenderJob): Uint8Array {
  const raw = new TextEncoder().encode(renderQr(job.text, job.options, job.frame));
  if (job.encoding === undefined) return raw;
  const encoded = encodeSync(raw, job.encoding);
  return encoded.byteOffset === 0 && encoded.byteLength === encoded.buffer.byteLength ? encoded : new Uint8Array(encoded);
}

/**
 * Built, the worker is a .js file beside this one. Under tsx (tests, benches) it is a .ts file, and a
 * worker thread does not inherit tsx's loader: it registers it before importing the worker.
 */
function newWorker(): Worker | undefined {
  if (!import.meta.url.endsWith('.ts')) {
    const file = new URL('./render-worker.js', import.meta.url);
    // A single-file bundle of the server (the tests' entry points) has no worker file beside it.
    return fs.existsSync(file) ? new Worker(file) : undefined;
  }
  const tsx = import.meta.resolve('tsx/esm/api');
  const file = new URL('./render-worker.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(file)}); });`, { eval: true });
}

/**
 * A few worker threads that draw QR exports. A 2048-pixel export with a 700 000-character logo takes
 * tens of milliseconds of CPU (checking the logo's bytes, building the path); on the main thread eight
 * of them in parallel hold every redirect behind them. The workers also compress the answer and hand
 * its bytes over, so the main thread neither compresses nor copies it (bench/qr-load.ts). Workers
 * start on the first export and stay.
 */
export class RenderPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private started = 0;
  private nextId = 1;
  private closed = false;
  /** No worker file to start: exports are drawn on the main thread instead. */
  private inline = false;

  constructor(private readonly size = Math.max(1, Math.min(2, os.availableParallelism() - 1))) {}

  render(text: string, options: QrOptions, frame: QrFrame = {}, encoding?: Encoding): Promise<RenderedQr> {
    if (this.closed) return Promise.reject(new AppError('links_unavailable', 1));
    const job: RenderJob = { id: this.nextId++, text, options, frame, ...(encoding ? { encoding } : {}) };
    if (this.inline) {
      try {
        return Promise.resolve(rendered(job, renderedBytes(job)));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) pending.reject(new AppError('links_unavailable', 1));
    await Promise.all([...this.idle, ...this.busy.keys()].map((worker) => worker.terminate()));
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.started < this.size ? this.spawn() : undefined);
      if (!worker) return;
      const pending = this.queue.shift()!;
      this.busy.set(worker, pending);
      worker.postMessage(pending.job);
    }
  }

  private spawn(): Worker | undefined {
    const worker = newWorker();
    if (!worker) {
      this.inline = true;
      for (const { job, resolve, reject } of this.queue.splice(0)) this.render(job.text, job.options, job.frame, job.encoding).then(resolve, reject);
      return undefined;
    }
    this.started++;
    worker.on('message', (result: RenderResult) => this.settle(worker, result));
    worker.on('error', (error) => this.lose(worker, error));
    return worker;
  }

  private settle(worker: Worker, result: RenderResult): void {
    const pending = this.busy.get(worker);
    this.busy.delete(worker);
    this.idle.push(worker);
    if (pending) {
      if ('bytes' in result) pending.resolve(rendered(pending.job, result.bytes));
      else if ('refused' in result) pending.reject(new AppError(result.refused));
      else pending.reject(new Error(`QR render failed: ${result.failed}`));
    }
    this.pump();
  }

  /** A worker that died takes its job with it; the next export starts a new one. */
  private lose(worker: Worker, error: Error): void {
    const pending = this.busy.get(worker);
    this.busy.delete(worker);
    this.started--;
    pending?.reject(error);
    if (!this.closed) this.pump();
  }
}

function rendered(job: RenderJob, bytes: Uint8Array): RenderedQr {
  return { bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), ...(job.encoding ? { encoding: job.encoding } : {}) };
}
