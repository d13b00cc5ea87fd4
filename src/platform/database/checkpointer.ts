import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The checkpoint thread's scheduling priority (nice): below the event loop's, so on a busy core the
 * kernel runs the redirects first and the checkpoints in the time they leave (at 10 a thread gets
 * about a tenth of a saturated core). On Linux a thread's nice value is its own, so setting it in the
 * thread leaves the event loop's thread as it is.
 */
const CHECKPOINT_NICE = 10;

/**
 * Runs in the worker thread (CommonJS, from a string: no file to find next to the compiled or the
 * TypeScript sources), below the event loop's priority (CHECKPOINT_NICE). Its own connection
 * copies the log into the database file every interval; PASSIVE never waits for readers or the
 * writer, it copies what it can.
 */
const WORKER_SOURCE = `
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
  private worker: Worker;
  private exited: Promise<unknown> = Promise.resolve();
  private stopping = false;
  private restart: NodeJS.Timeout | undefined;

  /** `onError` hears of a thread that failed (it is started again); by default nothing is reported. */
  constructor(
    private readonly file: string,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.worker = this.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restart);
    this.worker.postMessage('stop');
    const timeout = setTimeout(() => void this.worker.terminate(), 2000);
    await this.exited;
    clearTimeout(timeout);
  }

  private start(): Worker {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const workerData = { file: this.file, driver, intervalMs: this.intervalMs, nice: CHECKPOINT_NICE };
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
    // A worker that fails leaves checkpoints to the writing connection's automatic limit until the next.
    worker.on('error', (error) => this.onError(error));
    this.exited = once(worker, 'exit').catch(() => undefined);
    // A thread that ends by itself (its connection could not be opened: the file locked, its disk gone)
    // is started again ten intervals later, so checkpoints resume once the file can be opened.
    worker.once('exit', () => {
      if (this.stopping) return;
      this.restart = setTimeout(() => (this.worker = this.start()), this.intervalMs * RESTART_INTERVALS);
      this.restart.unref();
    });
    // Never what keeps the process alive.
    worker.unref();
    return worker;
  }
}

const RESTART_INTERVALS = 10;
