import crypto from 'node:crypto';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { DayVisitsMessage } from '../day-visits.js';
import type { Handover, RecordingBackend, Shortfall } from '../ports.js';
import { RecordingLoop, type RecordingActivity, type RecordingLoopOptions } from '../recording-loop.js';
import { BACKGROUND_NICE, QUIET_THREAD_SOURCE, UNPIPED_STDIO } from '../../platform/database/background-threads.js';
import type { Database } from '../../platform/database/database.js';
import { KyselyVisitStore } from './visit-store.js';

/** The loop's settings that cross to the thread (the store and the instance are made there). */
export type LoopSettings = Omit<RecordingLoopOptions, 'store' | 'onError' | 'onActivity' | 'instanceId'>;

export interface Request {
  id: number;
  op: 'start' | 'tick' | 'flush' | 'stop';
  now: number;
  days: DayVisitsMessage[];
  dropped: Shortfall[];
}
export interface ErrorReport {
  message: string;
  code?: string;
  stack?: string;
}
/**
 * A request's answer with the thread's count of released visits (and `resync` when it could not read
 * a buffer's links: its mirror of the link table is out of step, so it must be sent all of them), or
 * an error of a tick to log. `activities`: the flushes and roll-ups that ended since the last answer.
 */
export type Reply =
  | { id: number; released: number; durableAt: number; resync?: boolean; error?: ErrorReport; activities?: RecordingActivity[] }
  | { report: ErrorReport };

/** The final flush's limit before the thread is ended (the server's own shutdown limit is 15 s). */
const STOP_TIMEOUT_MS = 10_000;
/** The longest wait before another thread is started after threads kept dying (see restartDelay). */
const MAX_RESTART_DELAY_MS = 60_000;
/** A thread that ran this long (recorder time) before it died was healthy: its death counts as a first. */
const HEALTHY_LIFE_MS = 60_000;

/**
 * How long after the `failures`-th death in a row another thread is started for a tick: at the next
 * tick after the first (a crash is replaced at once), then 2, 4, 8 ... s, at most a minute; deaths
 * are in a row until a thread lives a minute. A thread
 * that dies on start (a database it cannot open, say) would otherwise be started, and its error
 * logged, every second, each start costing the redirects' core tens of milliseconds.
 */
export const restartDelay = (failures: number): number => (failures <= 1 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 1000 * 2 ** (failures - 1)));

export interface WorkerData {
  databaseUrl: string;
  /** SQLite: the event loop's waiting writers, which the thread's connection gives way to. */
  giveWayTo: Int32Array | undefined;
  settings: LoopSettings;
  instanceId: string;
  nice: number;
}

export const describeError = (error: unknown): ErrorReport => {
  const e = error as { message?: unknown; code?: unknown; stack?: unknown } | undefined;
  return { message: String(e?.message ?? error), code: typeof e?.code === 'string' ? e.code : undefined, stack: typeof e?.stack === 'string' ? e.stack : undefined };
};
const asError = (report: ErrorReport) => Object.assign(new Error(report.message), { code: report.code, stack: report.stack });

/**
 * Where recorded visits go: a recording loop on a thread of its own with its own database connection,
 * so that flushes, roll-ups and their garbage never run on the event loop that answers redirects; an
 * in-memory SQLite database, which no other connection can open, keeps the loop on this thread.
 */
export function recordingBackend(
  database: Database,
  settings: LoopSettings,
  onError: (error: unknown) => void,
  onActivity?: (activity: RecordingActivity) => void,
): RecordingBackend {
  if (database.url === 'sqlite::memory:') {
    return new RecordingLoop({ ...settings, instanceId: crypto.randomUUID(), store: new KyselyVisitStore(database), onError, onActivity });
  }
  return new RecordingThread(database, settings, onError, onActivity);
}

/**
 * The recording thread (recording-worker.ts), seen from the event loop. Visits are handed over as
 * messages whose word arrays are copied, never transferred (day-visits.ts, DayVisitsMessage). A
 * thread that dies is replaced at the next tick under a new instance id: what it held is lost, and
 * the old instance's silence becomes a gap when it is reaped (docs/decisions.md, "Heartbeats").
 */
export class RecordingThread implements RecordingBackend {
  released = 0;
  private worker: Worker | undefined;
  private exited: Promise<unknown> = Promise.resolve();
  private stopping = false;
  private nextId = 1;
  private readonly calls = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  /** Visits posted to threads so far, and those that threads before the current one were given. */
  private posted = 0;
  private base = 0;
  /** Per link table (by id), how many of its links the current thread has been sent. */
  private linksSent = new Map<number, number>();
  /** The recorder's time up to which the thread made every visit durable, and of the last request posted. */
  private answeredAt = 0;
  private postedAt = 0;
  /** Visits a dead thread took with it, reported as a gap with the next request. */
  private lost: Shortfall[] = [];
  /** Threads that died in a row, each within HEALTHY_LIFE_MS of its start; no thread is started for a tick before restartAt. */
  private failures = 0;
  private restartAt = 0;
  /** The recorder's time when the current thread was started. */
  private spawnedAt = 0;

  constructor(
    private readonly database: Pick<Database, 'url' | 'waitingWriters'>,
    private readonly settings: LoopSettings,
    private readonly onError: (error: unknown) => void,
    private readonly onActivity?: (activity: RecordingActivity) => void,
  ) {}

  start(now: number): Promise<void> {
    return this.call('start', { now, days: [], dropped: [] });
  }

  tick(handover: Handover): Promise<void> {
    return this.call('tick', handover);
  }

  flush(handover: Handover): Promise<void> {
    return this.call('flush', handover);
  }

  async stop(handover: Handover): Promise<void> {
    const call = this.call('stop', handover);
    this.stopping = true;
    // A thread that does not finish its final flush in time is ended: shutdown must not hang on it.
    const timeout = setTimeout(() => void this.worker?.terminate(), STOP_TIMEOUT_MS);
    try {
      await call;
    } finally {
      await this.exited;
      clearTimeout(timeout);
    }
  }

  private call(op: Request['op'], handover: Handover): Promise<void> {
    // After stop no thread is started again: nothing would stop it.
    if (this.stopping) return Promise.reject(new Error('visit recording has stopped'));
    if (this.worker === undefined) {
      // A flush (tests) or the final one still starts a thread: only ticks wait.
      if (op === 'tick' && handover.now < this.restartAt) return this.skip(handover);
      this.spawnedAt = handover.now;
      this.spawn();
      if (op !== 'start') this.call('start', { now: handover.now, days: [], dropped: [] }).catch(this.onError);
    }
    const id = this.nextId++;
    let visits = 0;
    const sent = new Map<number, number>();
    const days = handover.days.map((day) => {
      visits += day.count;
      const message = day.toMessage(sent.get(day.table.id) ?? this.linksSent.get(day.table.id) ?? 0);
      sent.set(day.table.id, day.table.size);
      return message;
    });
    // Losses travel with a request that flushes (start only registers).
    const dropped = op === 'start' ? handover.dropped : [...handover.dropped, ...this.lost.splice(0)];
    const request: Request = { id, op, now: handover.now, days, dropped };
    return new Promise<void>((resolve, reject) => {
      try {
        // No transfer list: nothing is detached (day-visits.ts, DayVisitsMessage).
        this.worker!.postMessage(request);
      } catch (error) {
        // Nothing was sent: these visits are lost, and reported as a gap with the next request.
        this.unsent(visits, handover.now, handover.now, request.dropped);
        return reject(error);
      }
      this.calls.set(id, { resolve, reject });
      this.posted += visits;
      this.postedAt = handover.now;
      // Before any answer, nothing is durable since the first request: a loss is counted from there.
      this.answeredAt ||= handover.now;
      for (const [table, size] of sent) this.sentLinks(table, size);
    });
  }

  /**
   * A tick while no thread may be started yet (restartDelay): its visits are lost, and reported as a
   * service-wide gap with the first request a thread takes, as those a dead thread held are. Not an
   * error: the thread's death was logged, with the wait.
   */
  private skip(handover: Handover): Promise<void> {
    let visits = 0;
    let from = handover.now;
    for (const day of handover.days) {
      visits += day.count;
      from = Math.min(from, day.from);
    }
    this.unsent(visits, from, handover.now, handover.dropped);
    return Promise.resolve();
  }

  /** Visits no thread was given (and the shortfalls that came with them): released, and kept as a gap for the next request. */
  private unsent(visits: number, from: number, to: number, dropped: Shortfall[]): void {
    this.posted += visits;
    this.base += visits;
    this.released += visits;
    this.lose(visits, from, to);
    this.lost.push(...dropped);
  }

  /** Visits gone with a thread or a failed post: released for the recorder's bound, and a service-wide gap. */
  private lose(visits: number, from: number, to: number): void {
    if (visits === 0) return;
    this.lost.push({ linkId: null, reason: 'recording_unavailable', count: visits, from, to });
  }

  private sentLinks(table: number, size: number): void {
    this.linksSent.set(table, size);
    // A recorder fills one table at a time: older ones are never sent again.
    for (const id of this.linksSent.keys()) if (id < table) this.linksSent.delete(id);
  }

  private spawn(): void {
    // A new thread has no mirror of any link table.
    this.linksSent = new Map();
    const workerData: WorkerData = {
      databaseUrl: this.database.url,
      giveWayTo: this.database.waitingWriters,
      settings: this.settings,
      instanceId: crypto.randomUUID(),
      nice: BACKGROUND_NICE,
    };
    const worker = startWorker(workerData);
    this.worker = worker;
    this.exited = once(worker, 'exit').catch(() => undefined);
    worker.on('message', (reply: Reply) => {
      if ('report' in reply) return this.onError(asError(reply.report));
      const call = this.calls.get(reply.id);
      this.calls.delete(reply.id);
      this.released = this.base + reply.released;
      this.answeredAt = Math.max(this.answeredAt, reply.durableAt);
      if (reply.resync) this.linksSent = new Map();
      if (this.onActivity !== undefined) for (const activity of reply.activities ?? []) this.onActivity(activity);
      if (reply.error) call?.reject(asError(reply.error));
      else call?.resolve();
    });
    worker.on('error', (error) => this.onError(error));
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // Whatever the thread held is gone: the recorder must not count it against its buffer, and it
      // becomes a gap (a thread that died before its first heartbeat leaves no instance to reap).
      this.lose(this.posted - this.released, this.answeredAt, this.postedAt);
      this.base = this.posted;
      this.released = this.posted;
      // A thread that dies a tick or two after each start (a batch that crashes it, say) backs off too.
      if (this.postedAt - this.spawnedAt >= HEALTHY_LIFE_MS) this.failures = 0;
      const delay = restartDelay(++this.failures);
      this.restartAt = this.postedAt + delay;
      const restart = delay === 0 ? 'at the next tick' : `in ${delay / 1000} s (${this.failures} threads exited in a row)`;
      const failed = new Error(this.stopping ? 'recording thread stopped' : `recording thread exited; a new one starts ${restart}`);
      for (const call of this.calls.values()) call.reject(failed);
      this.calls.clear();
      if (!this.stopping) this.onError(failed);
    });
  }
}

/**
 * The worker runs the compiled recording-worker.js; under tsx (tests, benchmarks from source) the
 * TypeScript file, through tsx's loader registered inside the thread (Node 20 does not carry
 * `--import` loaders into workers).
 */
function startWorker(workerData: unknown): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSource ? './recording-worker.ts' : './recording-worker.js', import.meta.url);
  if (!fromSource) return new Worker(entry, { workerData, ...UNPIPED_STDIO });
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(source, { eval: true, workerData, ...UNPIPED_STDIO });
}
