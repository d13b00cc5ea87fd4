import { DAY_MS, utcDay, type Clock } from '../time.js';
import { VisitClassifier } from './classify.js';
import { DayVisits } from './day-visits.js';
import type { RecordingLimits, Shortfall, Source, VisitStore } from './ports.js';


export interface RecorderOptions {
  store: VisitStore;
  now: Clock;
  instanceId: string;
  limits: RecordingLimits;
  flushIntervalMs: number;
  rollupIntervalMs: number;
  heartbeatIntervalMs: number;
  /** Visits kept in memory while the database fails; visits beyond are dropped and reported as a gap. */
  bufferMaxVisits: number;
  onError: (error: unknown) => void;
}


/**
 * Records visits off the redirect's critical path: `record` appends three words to the day's buffer
 * (day-visits.ts: no object, no key string per visit); a timer flushes them at least once a second in
 * one transaction, where allowances are enforced and the visits are written as a compact journal. A
 * failed flush keeps its visits for the next one (bounded), so a database outage loses nothing until
 * the buffer is full; what is dropped then is reported as a gap.
 */
export class VisitRecorder {
  readonly classifier = new VisitClassifier();
  /** Buffered visits per UTC day number; almost always one day. */
  private days = new Map<number, DayVisits>();
  private dayNumber = -1;
  private day: DayVisits = new DayVisits('', 0, 1);
  /** Visits of the last day buffer taken: the next one starts that large, so it need not grow. */
  private lastCount = 1024;
  private buffered = 0;
  /** Visits of flushes in flight or failed: retried with the next flush. */
  private pending: DayVisits[] = [];
  private pendingVisits = 0;
  private dropped = new Map<string, Shortfall>();
  private queue: Promise<unknown> = Promise.resolve();
  /** The roll-up started by a tick, running beside the flushes (see tick). */
  private rolling: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticks = 0;
  private busy = false;
  private readonly startedAt: number;

  constructor(private readonly o: RecorderOptions) {
    this.startedAt = o.now();
  }

  record(linkId: string, accountId: string | null, source: Source, userAgent: string | undefined, referer: string | undefined, country: string): void {
    const t = this.o.now();
    if (this.buffered + this.pendingVisits >= this.o.bufferMaxVisits) return this.drop(linkId, 1, t, t);
    const dayNumber = Math.floor(t / DAY_MS);
    const day = dayNumber === this.dayNumber ? this.day : this.dayOf(dayNumber, t);
    // False only past 65,536 distinct visitor classes or 32,768 countries in a day: never in practice.
    if (!day.add(linkId, accountId, source, country, this.classifier.userAgent(userAgent), this.classifier.referrer(referer))) return this.drop(linkId, 1, t, t);
    this.buffered++;
  }

  private dayOf(dayNumber: number, t: number): DayVisits {
    let day = this.days.get(dayNumber);
    if (!day) this.days.set(dayNumber, (day = new DayVisits(utcDay(dayNumber * DAY_MS), t, this.lastCount)));
    this.dayNumber = dayNumber;
    this.day = day;
    return day;
  }

  /**
   * Registers this instance and reports instances that died silently. What they flushed is folded by
   * the first tick, not here: a large backlog must not delay the start of the server.
   */
  async start(): Promise<void> {
    await this.serial(async () => {
      await this.o.store.beat(this.o.instanceId, this.startedAt, this.o.now());
      await this.reap();
    });
    this.timer = setInterval(() => void this.tick(), this.o.flushIntervalMs);
    this.timer.unref();
  }

  /** Flushes everything recorded so far and brings the rollups up to date (tests, shutdown). */
  async flush(): Promise<void> {
    await this.rolling;
    return this.serial(async () => {
      if (!(await this.flushOnce())) throw new Error('visit flush failed');
      await this.o.store.rollUp(this.o.now());
    });
  }

  /** Final flush before the database closes; the instance leaves cleanly only if nothing is left behind. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.rolling;
    await this.serial(async () => {
      if (!(await this.flushOnce())) return;
      await this.o.store.rollUp(this.o.now());
      await this.o.store.leave(this.o.instanceId);
    }).catch(this.o.onError);
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    const every = (ms: number) => this.ticks % Math.max(1, Math.round(ms / this.o.flushIntervalMs)) === 0;
    this.ticks++;
    try {
      await this.serial(async () => {
        const pending = this.buffered > 0 || this.pending.length > 0 || this.dropped.size > 0;
        if (pending) await this.flushOnce();
        else if (every(this.o.heartbeatIntervalMs)) await this.o.store.beat(this.o.instanceId, this.startedAt, this.o.now());
        if (every(this.o.heartbeatIntervalMs)) await this.reap();
      });
      // Not in the serial queue: a roll-up of a busy minute takes seconds, and flushes must go on at
      // least once a second meanwhile. Its passes and the flushes take turns on the database (each pass
      // folds and deletes its journal rows in one transaction, so a flush landing mid-roll-up is folded
      // next time).
      if (every(this.o.rollupIntervalMs) && this.rolling === undefined) {
        this.rolling = this.o.store
          .rollUp(this.o.now())
          .then(() => undefined, this.o.onError)
          .finally(() => (this.rolling = undefined));
      }
    } catch (error) {
      this.o.onError(error);
    } finally {
      this.busy = false;
    }
  }

  /** One flush transaction; on failure its visits wait for the next one. Returns success. */
  private async flushOnce(): Promise<boolean> {
    const now = this.o.now();
    const days = this.take();
    const dropped = this.dropped;
    this.dropped = new Map();
    try {
      await this.o.store.flush({ instanceId: this.o.instanceId, startedAt: this.startedAt, now, days, dropped: [...dropped.values()], limits: this.o.limits });
      this.pending = [];
      this.pendingVisits = 0;
      return true;
    } catch (error) {
      this.pending = days;
      for (const s of dropped.values()) this.drop(s.linkId!, s.count, s.from, s.to);
      this.o.onError(error);
      return false;
    }
  }

  /** The buffered days joined to those still pending from failed flushes, one entry per day, ascending. */
  private take(): DayVisits[] {
    const byDay = new Map<string, DayVisits>();
    for (const day of [...this.pending, ...this.days.values()]) {
      const known = byDay.get(day.day);
      if (!known) byDay.set(day.day, day);
      // Into the older buffer (a failed flush's, which nothing else holds): older visits first, the
      // order in which allowances are granted, and only the new visits are copied.
      else for (const linkId of known.append(day)) this.drop(linkId, 1, day.from, this.o.now());
    }
    if (this.day.count > 0) this.lastCount = this.day.count;
    this.pendingVisits += this.buffered;
    this.buffered = 0;
    this.days = new Map();
    this.dayNumber = -1;
    return [...byDay.values()].sort((a, b) => (a.day < b.day ? -1 : 1));
  }

  private drop(linkId: string, count: number, from: number, to: number): void {
    const known = this.dropped.get(linkId);
    if (known) {
      known.count += count;
      known.from = Math.min(known.from, from);
      known.to = Math.max(known.to, to);
    } else {
      this.dropped.set(linkId, { linkId, reason: 'recording_unavailable', count, from, to });
    }
  }

  private async reap(): Promise<void> {
    const now = this.o.now();
    // A live instance writes at least every tick and every heartbeat interval: three missed are death.
    const silence = 3 * Math.max(this.o.heartbeatIntervalMs, this.o.flushIntervalMs);
    await this.o.store.reapSilent(now - silence, now, this.o.instanceId);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }
}
