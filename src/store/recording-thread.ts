import crypto from 'node:crypto';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { DayVisitsMessage } from '../domain/analytics/day-visits.js';
import type { Handover, RecordingBackend, Shortfall } from '../domain/analytics/ports.js';
import { RecordingLoop, type RecordingLoopOptions } from '../domain/analytics/recording-loop.js';
import { BACKGROUND_NICE } from './background-threads.js';
import type { Database } from './database.js';
import { KyselyVisitStore } from './visit-store.js';

/** The loop's settings that cross to the thread (the store and the instance are made there). */
export type LoopSettings = Omit<RecordingLoopOptions, 'store' | 'onError' | 'instanceId'>;

/** The thread's scheduling priority (background-threads.ts). */
export const RECORDING_NICE = BACKGROUND_NICE;

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
/** A request's answer with the thread's count of released visits, or an error of a tick to log. */
export type Reply = { id: number; released: number; error?: ErrorReport } | { report: ErrorReport };

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
export function recordingBackend(database: Database, settings: LoopSettings, onError: (error: unknown) => void): RecordingBackend {
  if (database.url === 'sqlite::memory:') {
    return new RecordingLoop({ ...settings, instanceId: crypto.randomUUID(), store: new KyselyVisitStore(database), onError });
  }
  return new RecordingThread(database.url, settings, onError);
}

/**
 * The recording thread (recording-worker.ts), seen from the event loop. Visits are handed over as
 * messages whose word arrays are transferred, not copied (day-visits.ts). A thread that dies is
 * replaced at the next tick under a new instance id: what it held is lost, and the old instance's
 * silence becomes a gap when it is reaped (docs/decisions.md, "Heartbeats").
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

  constructor(
    private readonly databaseUrl: string,
    private readonly settings: LoopSettings,
    private readonly onError: (error: unknown) => void,
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
    this.stopping = true;
    try {
      await this.call('stop', handover);
    } finally {
      await this.exited;
    }
  }

  private call(op: Request['op'], handover: Handover): Promise<void> {
    if (this.worker === undefined) {
      this.spawn();
      if (op !== 'start') this.call('start', { now: handover.now, days: [], dropped: [] }).catch(this.onError);
    }
    const id = this.nextId++;
    const transfer: ArrayBuffer[] = [];
    const days = handover.days.map((day) => {
      this.posted += day.count;
      const { message, transfer: buffers } = day.toMessage(this.linksSent.get(day.table.id) ?? 0);
      this.sentLinks(day.table.id, day.table.size);
      transfer.push(...buffers);
      return message;
    });
    const request: Request = { id, op, now: handover.now, days, dropped: handover.dropped };
    return new Promise<void>((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker!.postMessage(request, transfer);
    });
  }

  private sentLinks(table: number, size: number): void {
    this.linksSent.set(table, size);
    // A recorder fills one table at a time: older ones are never sent again.
    for (const id of this.linksSent.keys()) if (id < table) this.linksSent.delete(id);
  }

  private spawn(): void {
    // A new thread has no mirror of any link table.
    this.linksSent = new Map();
    const workerData = { databaseUrl: this.databaseUrl, settings: this.settings, instanceId: crypto.randomUUID(), nice: RECORDING_NICE };
    const worker = startWorker(workerData);
    this.worker = worker;
    this.exited = once(worker, 'exit').catch(() => undefined);
    worker.on('message', (reply: Reply) => {
      if ('report' in reply) return this.onError(asError(reply.report));
      const call = this.calls.get(reply.id);
      this.calls.delete(reply.id);
      this.released = this.base + reply.released;
      if (reply.error) call?.reject(asError(reply.error));
      else call?.resolve();
    });
    worker.on('error', (error) => this.onError(error));
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // Whatever the thread held is gone: the recorder must not count it against its buffer.
      this.base = this.posted;
      this.released = this.posted;
      const failed = new Error(this.stopping ? 'recording thread stopped' : 'recording thread exited; a new one starts at the next tick');
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
  if (!fromSource) return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(source, { eval: true, workerData });
}
