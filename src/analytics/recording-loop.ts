import type { DayVisits, FlushResult, Handover, RecordingBackend, RecordingLimits, Shortfall, VisitStore } from './ports.js';

export interface RecordingLoopOptions {
  store: VisitStore;
  instanceId: string;
  limits: RecordingLimits;
  flushIntervalMs: number;
  rollupIntervalMs: number;
  heartbeatIntervalMs: number;
  onError: (error: unknown) => void;
  /** Told after every flush and roll-up (the /metrics endpoint's durations and visit counts). */
  onActivity?: (activity: RecordingActivity) => void;
}

/**
 * One flush or roll-up, how long it took and whether it succeeded. A flush also says how many visits
 * it wrote, refused (allowance, daily ceiling) and wrote as dropped (a recording_unavailable gap).
 */
export interface RecordingActivity {
  op: 'flush' | 'rollup';
  seconds: number;
  ok: boolean;
  recorded: number;
  refused: number;
  dropped: number;
}

/** Visits not recorded, merged per link (null: every link): counts add up, the span widens. */
export function addShortfall(shortfalls: Map<string | null, Shortfall>, linkId: string | null, count: number, from: number, to: number): void {
  const known = shortfalls.get(linkId);
  if (known) {
    known.count += count;
    known.from = Math.min(known.from, from);
    known.to = Math.max(known.to, to);
  } else {
    shortfalls.set(linkId, { linkId, reason: 'recording_unavailable', count, from, to });
  }
}

/**
 * Makes handed-over visits durable: one flush transaction per tick, where allowances are enforced and
 * the visits are written as a compact journal; heartbeats; reaping of dead instances; roll-ups. A failed
 * flush keeps its visits for the next one (the recorder bounds how many, through `released`). Runs on a
 * thread of its own (store/recording-thread.ts) or, for an in-memory database, beside the recorder.
 * Time is the recorder's: every handover carries its clock's reading.
 */
export class RecordingLoop implements RecordingBackend {
  released = 0;
  /** The handover time up to which every visit handed over is durable (its last successful flush, or an idle tick). */
  durableAt = 0;
  /** Handed-over days not yet durable: those of failed flushes first, then newer ones. */
  private waiting: DayVisits[] = [];
  /** By link; null: every link (visits lost whole, see lose). */
  private dropped = new Map<string | null, Shortfall>();
  private queue: Promise<unknown> = Promise.resolve();
  /** The roll-up started by a tick, running beside the flushes (see tick). */
  private rolling: Promise<void> | undefined;
  private ticks = 0;
  private busy = false;
  private startedAt = 0;

  constructor(private readonly o: RecordingLoopOptions) {}

  /** Registers this instance and reports instances that died silently (their flushes are folded by the first tick). */
  async start(now: number): Promise<void> {
    this.startedAt = now;
    await this.serial(async () => {
      await this.o.store.beat(this.o.instanceId, this.startedAt, now);
      await this.reap(now);
    });
  }

  async tick(handover: Handover): Promise<void> {
    this.absorb(handover);
    // A tick still running takes these visits with its next flush: a tick is never skipped with data.
    if (this.busy) return;
    this.busy = true;
    const every = (ms: number) => this.ticks % Math.max(1, Math.round(ms / this.o.flushIntervalMs)) === 0;
    this.ticks++;
    const now = handover.now;
    try {
      await this.serial(async () => {
        const pending = this.waiting.length > 0 || this.dropped.size > 0;
        if (pending) await this.flushOnce(now);
        else {
          this.durableAt = now;
          if (every(this.o.heartbeatIntervalMs)) await this.o.store.beat(this.o.instanceId, this.startedAt, now);
        }
        if (every(this.o.heartbeatIntervalMs)) await this.reap(now);
      });
      // Not in the serial queue: a roll-up of a busy minute takes seconds, and flushes must go on at
      // least once a second meanwhile. Its passes and the flushes take turns on the database (each pass
      // folds and deletes its journal rows in one transaction, so a flush landing mid-roll-up is folded
      // next time).
      if (every(this.o.rollupIntervalMs) && this.rolling === undefined) {
        this.rolling = this.rollUp(now)
          .then(() => undefined, this.o.onError)
          .finally(() => (this.rolling = undefined));
      }
    } catch (error) {
      this.o.onError(error);
    } finally {
      this.busy = false;
    }
  }

  /** Flushes everything handed over and brings the rollups up to date (tests); rejects if the flush fails. */
  async flush(handover: Handover): Promise<void> {
    this.absorb(handover);
    await this.rolling;
    return this.serial(async () => {
      if (!(await this.flushOnce(handover.now))) throw new Error('visit flush failed');
      await this.rollUp(handover.now);
    });
  }

  /** Final flush before the database closes; the instance leaves cleanly only if nothing is left behind. */
  async stop(handover: Handover): Promise<void> {
    this.absorb(handover);
    await this.rolling;
    await this.serial(async () => {
      if (!(await this.flushOnce(handover.now))) return;
      await this.rollUp(handover.now);
      await this.o.store.leave(this.o.instanceId);
    }).catch(this.o.onError);
  }

  /** Visits that reached this loop unreadable: released, and reported as a service-wide gap. */
  lose(visits: number, from: number, to: number): void {
    this.released += visits;
    addShortfall(this.dropped, null, visits, from, to);
  }

  private absorb(handover: Handover): void {
    this.waiting.push(...handover.days);
    for (const s of handover.dropped) addShortfall(this.dropped, s.linkId, s.count, s.from, s.to);
  }

  /** One flush transaction; on failure its visits wait for the next one. Returns success. */
  private async flushOnce(now: number): Promise<boolean> {
    const days = this.take(now);
    const dropped = this.dropped;
    this.dropped = new Map();
    const started = performance.now();
    let result: FlushResult;
    try {
      result = await this.o.store.flush({ instanceId: this.o.instanceId, startedAt: this.startedAt, now, days, dropped: [...dropped.values()], limits: this.o.limits });
    } catch (error) {
      this.waiting = [...days, ...this.waiting];
      for (const s of dropped.values()) addShortfall(this.dropped, s.linkId, s.count, s.from, s.to);
      this.o.onActivity?.({ op: 'flush', seconds: (performance.now() - started) / 1000, ok: false, recorded: 0, refused: 0, dropped: 0 });
      this.o.onError(error);
      return false;
    }
    for (const day of days) this.released += day.count;
    this.durableAt = now;
    let lost = 0;
    for (const s of dropped.values()) lost += s.count;
    const { recorded, refused } = result;
    this.o.onActivity?.({ op: 'flush', seconds: (performance.now() - started) / 1000, ok: true, recorded, refused, dropped: lost });
    return true;
  }

  /** The store's roll-up, timed for onActivity; rejects as the store's does. */
  private async rollUp(now: number): Promise<void> {
    const started = performance.now();
    const report = (ok: boolean) =>
      this.o.onActivity?.({ op: 'rollup', seconds: (performance.now() - started) / 1000, ok, recorded: 0, refused: 0, dropped: 0 });
    try {
      await this.o.store.rollUp(now);
    } catch (error) {
      report(false);
      throw error;
    }
    report(true);
  }

  /** The waiting days joined into one entry per day, ascending. */
  private take(now: number): DayVisits[] {
    const byDay = new Map<string, DayVisits>();
    for (const day of this.waiting) {
      const known = byDay.get(day.day);
      if (!known) byDay.set(day.day, day);
      // Into the older buffer (a failed flush's): older visits first, the order in which allowances
      // are granted, and only the new visits are copied.
      else {
        const refused = known.append(day);
        for (const linkId of refused) addShortfall(this.dropped, linkId, 1, day.from, now);
        this.released += refused.length;
      }
    }
    this.waiting = [];
    return [...byDay.values()].sort((a, b) => (a.day < b.day ? -1 : 1));
  }

  private async reap(now: number): Promise<void> {
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
