import crypto from 'node:crypto';
import type { Clock } from '../platform/time.js';
import type { VisitsRecorded } from '../platform/events.js';
import type { LinkRef, RecordingLimits, RecordingStore, Shortfall, Source, VisitClass } from './ports.js';
import { addShortfall, PendingVisits } from './visits.js';

export interface RecorderOptions {
  store: RecordingStore;
  now: Clock;
  limits: RecordingLimits;
  flushIntervalMs: number;
  heartbeatIntervalMs: number;
  /** Visits held in memory (waiting or being flushed); visits beyond are dropped and reported as a gap. */
  bufferMaxVisits: number;
  onError: (error: unknown) => void;
  /** Told after every flush (the /metrics endpoint's durations and visit counts). */
  onActivity?: (activity: RecordingActivity) => void;
  /** Told after every flush that recorded visits (the event seam's visits.recorded). */
  onRecorded?: (event: VisitsRecorded) => void;
}

/** One flush: its duration, success, and visits recorded, refused (allowance, ceiling) and dropped (a gap). */
export interface RecordingActivity {
  seconds: number;
  ok: boolean;
  recorded: number;
  refused: number;
  dropped: number;
}

/**
 * After a flush that started at S and took D ms, the next is due a flush interval after S, or at S + 20 × D
 * (recording takes about a twentieth of the event loop), but no later than S + 2.5 s (freshness), and, past
 * a few milliseconds, no sooner than 1 s after its end (ADR 0042). At ordinary load flushes take
 * milliseconds and run every flush interval.
 */
const FLUSH_SPACING = 20;
const MAX_FLUSH_PERIOD_MS = 2500;
const MIN_FLUSH_GAP_MS = 1000;

/**
 * Records visits off the redirect's critical path: `record` appends a visit in memory (visits.ts), and a
 * flush transaction applies the allowances, writes the rollups and the heartbeat. A failed flush keeps its
 * visits for the next; past `bufferMaxVisits` held, visits are dropped and reported as a gap.
 */
export class VisitRecorder {
  readonly instanceId = crypto.randomUUID();
  private pending = new PendingVisits();
  /** Visits of the flush under way. */
  private inFlight = 0;
  private dropped = new Map<string, Shortfall>();
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private startedAt = 0;
  private nextFlushAt = 0;
  private lastReap = -Infinity;

  constructor(private readonly o: RecorderOptions) {}

  /** A visit at time `t` (the redirect's clock reading). */
  record(link: LinkRef, source: Source, country: string, visitor: VisitClass, referrer: string, t: number): void {
    if (this.pending.visits + this.inFlight >= this.o.bufferMaxVisits)
      return addShortfall(this.dropped, { linkId: link.id, reason: 'recording_unavailable', count: 1, from: t, to: t });
    this.pending.add(link, source, country, visitor, referrer, t);
  }

  /** Registers this instance, reports instances that died silently, and starts the steps. */
  start(): void {
    this.startedAt = this.o.now();
    this.schedule(0, true);
  }

  /** Flushes everything recorded so far (tests, shutdown); rejects when the flush fails. */
  flush(): Promise<void> {
    return this.serial(async () => {
      if (!(await this.flushOnce())) throw new Error('visit flush failed');
    });
  }

  /** The final flush; the instance leaves cleanly only when nothing is left behind. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.serial(async () => {
      if (await this.flushOnce()) await this.o.store.leave(this.instanceId);
    }).catch(this.o.onError);
  }

  /**
   * One step at a time, each scheduled when the one before ends: at the flush's due time when that comes
   * within a flush interval (a step that flushes, if visits wait), else a flush interval on (a heartbeat).
   */
  private schedule(ms: number, flush: boolean): void {
    this.timer = setTimeout(() => {
      this.serial(() => this.step(flush))
        .catch(this.o.onError)
        .finally(() => {
          const due = this.nextFlushAt - performance.now();
          // A flush overdue with visits waiting runs at once; with none, the next step is a flush interval on.
          const ms = due > 0 ? Math.min(due, this.o.flushIntervalMs) : this.waiting ? 0 : this.o.flushIntervalMs;
          if (!this.stopped) this.schedule(ms, due <= this.o.flushIntervalMs);
        });
    }, ms);
    this.timer.unref();
  }

  /** A flush, or with visits waiting for their due time a heartbeat; then, every heartbeat interval, the reaping of dead instances. */
  private async step(flush: boolean): Promise<void> {
    if (flush || !this.waiting) await this.flushOnce();
    else await this.o.store.beat(this.instanceId, this.startedAt, this.o.now());
    // Timed by the monotonic clock: a wall clock set back must not stop the reaping.
    if (performance.now() - this.lastReap < this.o.heartbeatIntervalMs) return;
    this.lastReap = performance.now();
    const now = this.o.now();
    // A live instance writes at least every heartbeat interval: three missed are death.
    await this.o.store.reapSilent(now - 3 * Math.max(this.o.heartbeatIntervalMs, this.o.flushIntervalMs), now, this.instanceId);
  }

  /** One flush transaction (with nothing waiting, a heartbeat); on failure its visits wait for the next one. Returns success. */
  private async flushOnce(): Promise<boolean> {
    const now = this.o.now();
    if (!this.waiting) {
      await this.o.store.beat(this.instanceId, this.startedAt, now, now);
      return true;
    }
    const batch = this.pending;
    const dropped = [...this.dropped.values()];
    this.pending = new PendingVisits();
    this.dropped = new Map();
    this.inFlight = batch.visits;
    const started = performance.now();
    let perLink: Map<string, number>;
    try {
      perLink = await this.o.store.flush({
        instanceId: this.instanceId,
        startedAt: this.startedAt,
        now,
        days: await batch.tallied(),
        dropped,
        limits: this.o.limits,
      });
    } catch (error) {
      // Older visits first: the order in which allowances grant them.
      batch.append(this.pending);
      this.pending = batch;
      for (const s of dropped) addShortfall(this.dropped, s);
      this.report(started, false, 0, 0, 0);
      this.o.onError(error);
      return false;
    } finally {
      this.inFlight = 0;
    }
    let visits = 0;
    for (const n of perLink.values()) visits += n;
    const lost = dropped.reduce((n, s) => n + s.count, 0);
    this.report(started, true, visits, batch.visits - visits, lost);
    if (perLink.size > 0) this.o.onRecorded?.({ at: now, links: [...perLink].map(([linkId, n]) => ({ linkId, visits: n })) });
    return true;
  }

  private report(started: number, ok: boolean, recorded: number, refused: number, dropped: number): void {
    const ended = performance.now();
    const ms = ended - started;
    const spacing = FLUSH_SPACING * ms;
    this.nextFlushAt = Math.max(
      started + this.o.flushIntervalMs,
      started + Math.min(spacing, MAX_FLUSH_PERIOD_MS),
      ended + Math.min(spacing, MIN_FLUSH_GAP_MS),
    );
    this.o.onActivity?.({ seconds: ms / 1000, ok, recorded, refused, dropped });
  }

  /** Visits, or visits not recorded, that the next flush takes. */
  private get waiting(): boolean {
    return this.pending.visits > 0 || this.dropped.size > 0;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }
}
