import crypto from 'node:crypto';
import type { Clock } from '../platform/time.js';
import { addShortfall } from './counts.js';
import { FlushUnanswered, type RecordingLimits, type RecordingStore, type Shortfall, type Visit } from './ports.js';

/** The longest from the start of a busy instance's flush to the start of the next: a visit waits at most that and its own flush (ADR 0042). */
export const MAX_CYCLE_MS = 3000;
/** The compaction's budget per heartbeat interval; it runs between flushes. */
const COMPACTING_MS = 200;
/** From this many visits a flush, the instance counts as busy recording (ordinary load is far below). */
export const SPACED_FROM_VISITS = 5000;
/** A busy instance's pause after a flush, in flushes' lengths: flushing takes at most a tenth of its time. */
export const BUSY_SPACING = 9;

/** Delay before the next flush: an interval after the last one started, longer after a busy flush (BUSY_SPACING, MAX_CYCLE_MS) or a slow one. */
export function nextFlushIn(started: number, ended: number, visits: number, intervalMs: number): number {
  const took = ended - started;
  const spacing = visits >= SPACED_FROM_VISITS ? Math.min(BUSY_SPACING * took, MAX_CYCLE_MS - took) : Math.min(intervalMs, took);
  return Math.max(0, Math.max(started + intervalMs, ended + spacing) - ended);
}

const countOf = (shortfalls: Shortfall[]) => shortfalls.reduce((n, s) => n + s.count, 0);

export interface RecorderOptions {
  store: RecordingStore;
  now: Clock;
  limits: RecordingLimits;
  flushIntervalMs: number;
  heartbeatIntervalMs: number;
  /** Visits held in memory (waiting or being flushed); visits beyond are dropped and reported as a gap. */
  bufferMaxVisits: number;
  onError: (error: unknown) => void;
  /** Feeds the /metrics endpoint after every flush. */
  onActivity?: (activity: RecordingActivity) => void;
}

/** One flush; `refused`: by the allowances and ceilings, `dropped`: before the flush, reported as a gap. */
export interface RecordingActivity {
  seconds: number;
  ok: boolean;
  recorded: number;
  refused: number;
  dropped: number;
}

/**
 * Records visits off the redirect's critical path: `record` only appends, and about once a second a flush transaction records them.
 * Under load flushes are spaced out (nextFlushIn): flushing takes at most a tenth of the time, and each flush writes more visits per
 * tally, since its cost follows the tallies it writes. A failed flush keeps its visits for the next; one whose COMMIT went unanswered
 * keeps them apart until the store tells whether it took, before anything else, so they are neither counted twice nor lost.
 */
export class VisitRecorder {
  readonly instanceId = crypto.randomUUID();
  private pending: Visit[] = [];
  /** Bot visits are held only up to what the bot ceiling could record anyway (ADR 0049). */
  private pendingBots = 0;
  private inFlight = 0;
  /** The batch of a flush unanswered at its commit (FlushUnanswered), until settled. */
  private unanswered: { visits: Visit[]; dropped: Shortfall[]; recorded: number } | undefined;
  private dropped = new Map<string, Shortfall>();
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private startedAt = 0;
  private lastReap = -Infinity;
  /** Tells a busy instance from a slow database or a cold start (nextFlushIn). */
  private lastFlushVisits = 0;

  constructor(private readonly o: RecorderOptions) {}

  record(visit: Visit): void {
    if (visit.agent.bot && this.pendingBots >= this.o.limits.trackingDailyBotLimit)
      return addShortfall(this.dropped, { linkId: visit.link.id, reason: 'bot_ceiling_reached', count: 1, from: visit.time, to: visit.time });
    if (this.pending.length + this.inFlight + (this.unanswered?.visits.length ?? 0) >= this.o.bufferMaxVisits)
      return addShortfall(this.dropped, { linkId: visit.link.id, reason: 'recording_unavailable', count: 1, from: visit.time, to: visit.time });
    this.pending.push(visit);
    if (visit.agent.bot) this.pendingBots++;
  }

  start(): void {
    this.startedAt = this.o.now();
    this.schedule(0);
  }

  /** For tests and shutdown; rejects when the flush fails. */
  flush(): Promise<void> {
    return this.serial(async () => {
      if (!(await this.flushOnce())) throw new Error('visit flush failed');
    });
  }

  /** Leaves only when nothing is left behind; otherwise its row stays, and the reaping reports a gap. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.serial(async () => {
      // A last flush unanswered at its commit is settled by one more, which flushes what it leaves.
      if ((await this.flushOnce()) || (this.unanswered !== undefined && (await this.flushOnce()))) await this.o.store.leave(this.instanceId);
    }).catch(this.o.onError);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      const started = performance.now();
      this.serial(() => this.step())
        .catch(this.o.onError)
        .finally(() => {
          const due = nextFlushIn(started, performance.now(), this.lastFlushVisits, this.o.flushIntervalMs);
          if (!this.stopped) this.schedule(due);
        });
    }, ms);
    this.timer.unref();
  }

  private async step(): Promise<void> {
    await this.flushOnce();
    // Timed by the monotonic clock: a wall clock set back must not stop the reaping.
    if (performance.now() - this.lastReap < this.o.heartbeatIntervalMs) return;
    this.lastReap = performance.now();
    const now = this.o.now();
    // A live instance writes at least every heartbeat interval: three missed are death.
    await this.o.store.reapSilent(now - 3 * Math.max(this.o.heartbeatIntervalMs, this.o.flushIntervalMs), now, this.instanceId);
    const until = performance.now() + COMPACTING_MS;
    while (performance.now() < until && (await this.o.store.compact()) > 0);
  }

  /** For tests: compacts everything (the timer does it a little at a time). */
  compact(): Promise<void> {
    return this.serial(async () => {
      while ((await this.o.store.compact(true)) > 0);
    });
  }

  private async flushOnce(): Promise<boolean> {
    if (this.unanswered !== undefined && !(await this.settle())) return false;
    const now = this.o.now();
    this.lastFlushVisits = this.pending.length;
    if (this.pending.length === 0 && this.dropped.size === 0) {
      await this.o.store.beat(this.instanceId, this.startedAt, now, now);
      return true;
    }
    const visits = this.pending;
    const dropped = [...this.dropped.values()];
    this.pending = [];
    this.pendingBots = 0;
    this.dropped = new Map();
    this.inFlight = visits.length;
    const started = performance.now();
    try {
      const recorded = await this.o.store.flush({ instanceId: this.instanceId, startedAt: this.startedAt, now, visits, dropped, limits: this.o.limits });
      this.report(started, true, recorded.length, visits.length - recorded.length, countOf(dropped));
      return true;
    } catch (error) {
      if (error instanceof FlushUnanswered) this.unanswered = { visits, dropped, recorded: error.recorded.length };
      else this.putBack(visits, dropped);
      this.report(started, false, 0, 0, 0);
      this.o.onError(error);
      return false;
    } finally {
      this.inFlight = 0;
    }
  }

  /** Returns whether the store could tell if the unanswered flush took. */
  private async settle(): Promise<boolean> {
    const { visits, dropped, recorded } = this.unanswered!;
    const started = performance.now();
    try {
      const took = await this.o.store.settle(this.instanceId, this.o.now());
      if (took) this.report(started, true, recorded, visits.length - recorded, countOf(dropped));
      else this.putBack(visits, dropped);
      this.unanswered = undefined;
      return true;
    } catch (error) {
      this.o.onError(error);
      return false;
    }
  }

  /** Ahead of newer ones: a batch holds its visits in arrival order (ADR 0049). */
  private putBack(visits: Visit[], dropped: Shortfall[]): void {
    this.pending = visits.concat(this.pending);
    this.pendingBots = this.pending.filter((v) => v.agent.bot).length;
    for (const s of dropped) addShortfall(this.dropped, s);
  }

  private report(started: number, ok: boolean, recorded: number, refused: number, dropped: number): void {
    this.o.onActivity?.({ seconds: (performance.now() - started) / 1000, ok, recorded, refused, dropped });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }
}
