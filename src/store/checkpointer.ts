import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BACKGROUND_NICE, QUIET_THREAD_SOURCE, UNPIPED_STDIO } from './background-threads.js';

/**
 * Runs in the worker thread (CommonJS, from a string: no file to find next to the compiled or the
 * TypeScript sources), below the event loop's priority (background-threads.ts). Its own connection
 * copies the log into the database file every interval; PASSIVE never waits for readers or the
 * writer, it copies what it can.
 */
const WORKER_SOURCE = `
${QUIET_THREAD_SOURCE}
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
try { require('node:os').setPriority(workerData.nice); } catch { /* not permitted: the process's priority */ }
const db = new Database(workerData.file);
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: the next interval tries again */ }
}, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * SQLite checkpoints (copying the write-ahead log into the database file, with two fsyncs) in a
 * worker thread instead of in the commit that crosses the log's size limit: such a commit held the
 * event loop for 10 to 20 ms, several times a minute under busy recording (docs/benchmarks.md). The
 * writing connection keeps a high automatic limit as a safety net (database.ts), so the log stays
 * bounded if this thread cannot run.
 */
export class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<unknown>;

  constructor(file: string, intervalMs: number) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, ...UNPIPED_STDIO, workerData: { file, driver, intervalMs, nice: BACKGROUND_NICE } });
    // A worker that fails leaves checkpoints to the writing connection's automatic limit.
    this.worker.on('error', () => {});
    this.exited = once(this.worker, 'exit').catch(() => undefined);
    // Never what keeps the process alive.
    this.worker.unref();
  }

  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    const timeout = setTimeout(() => void this.worker.terminate(), 2000);
    await this.exited;
    clearTimeout(timeout);
  }
}
