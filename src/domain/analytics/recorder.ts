import { DAY_MS, utcDay, type Clock } from '../time.js';
import { VisitClassifier, type UaClass } from './classify.js';
import type { RecordingLimits, Shortfall, Source, VisitCount, VisitStore } from './ports.js';


export interface RecorderOptions {
  store: VisitStore;
  now: Clock;
  instanceId: string;
  limits: RecordingLimits;
  flushIntervalMs: number;
  rollupIntervalMs: number;
  heartbeatIntervalMs: number;
  /** Distinct aggregation entries kept in memory while the database fails; visits beyond are dropped. */
  bufferMaxEntries: number;
  onError: (error: unknown) => void;
}

interface Entry {
  linkId: string;
  accountId: string | null;
  dayNumber: number;
  source: Source;
  country: string;
  ua: UaClass;
  referrer: string;
  count: number;
}

/**
 * Records visits off the redirect's critical path: `record` only bumps a counter in memory; a timer
 * flushes the counters at least once a second in one transaction, where allowances are enforced.
 * A failed flush puts its counters back (bounded), so a database outage loses nothing until the buffer
 * is full; what is dropped then is reported as a gap.
 */
export class VisitRecorder {
  readonly classifier = new VisitClassifier();
  private buffer = new Map<string, Entry>();
  private bufferFrom = 0;
  private dropped = new Map<string, Shortfall>();
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private ticks = 0;
  private busy = false;
  private readonly startedAt: number;

  constructor(private readonly o: RecorderOptions) {
    this.startedAt = o.now();
  }

  record(linkId: string, accountId: string | null, source: Source, userAgent: string | undefined, referer: string | undefined, country: string): void {
    const t = this.o.now();
    const ua = this.classifier.userAgent(userAgent);
    const referrer = this.classifier.referrer(referer);
    const dayNumber = Math.floor(t / DAY_MS);
    const key = `${dayNumber}|${linkId}|${source}|${country}|${ua.id}|${referrer}`;
    const entry = this.buffer.get(key);
    if (entry !== undefined) {
      entry.count++;
      return;
    }
    if (this.buffer.size >= this.o.bufferMaxEntries) return this.drop(linkId, 1, t, t);
    if (this.buffer.size === 0) this.bufferFrom = t;
    this.buffer.set(key, { linkId, accountId, dayNumber, source, country, ua, referrer, count: 1 });
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
  flush(): Promise<void> {
    return this.serial(async () => {
      if (!(await this.flushOnce())) throw new Error('visit flush failed');
      await this.o.store.rollUp(this.o.now());
    });
  }

  /** Final flush before the database closes; the instance leaves cleanly only if nothing is left behind. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
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
        const pending = this.buffer.size > 0 || this.dropped.size > 0;
        if (pending) await this.flushOnce();
        else if (every(this.o.heartbeatIntervalMs)) await this.o.store.beat(this.o.instanceId, this.startedAt, this.o.now());
        if (every(this.o.heartbeatIntervalMs)) await this.reap();
        if (every(this.o.rollupIntervalMs)) await this.o.store.rollUp(this.o.now());
      });
    } catch (error) {
      this.o.onError(error);
    } finally {
      this.busy = false;
    }
  }

  /** One flush transaction; on failure the counters go back into the buffer. Returns success. */
  private async flushOnce(): Promise<boolean> {
    const now = this.o.now();
    const taken = this.buffer;
    const from = taken.size > 0 ? this.bufferFrom : now;
    const dropped = this.dropped;
    this.buffer = new Map();
    this.dropped = new Map();
    try {
      const counts = [...taken.values()].map(toCount);
      // Let redirects queued during that conversion run before the flush's own work starts.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.o.store.flush({
        instanceId: this.o.instanceId,
        startedAt: this.startedAt,
        now,
        from,
        counts,
        dropped: [...dropped.values()],
        limits: this.o.limits,
      });
      return true;
    } catch (error) {
      this.restore(taken, from, dropped);
      this.o.onError(error);
      return false;
    }
  }

  private restore(taken: Map<string, Entry>, from: number, dropped: Map<string, Shortfall>): void {
    for (const [key, entry] of taken) {
      const newer = this.buffer.get(key);
      if (newer) newer.count += entry.count;
      else if (this.buffer.size < this.o.bufferMaxEntries) this.buffer.set(key, entry);
      else this.drop(entry.linkId, entry.count, from, this.o.now());
    }
    if (taken.size > 0) this.bufferFrom = Math.min(from, this.buffer.size > 0 ? this.bufferFrom : from);
    for (const s of dropped.values()) this.drop(s.linkId!, s.count, s.from, s.to);
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

const days = new Map<number, string>();
function dayName(n: number): string {
  let name = days.get(n);
  if (!name) days.set(n, (name = utcDay(n * DAY_MS)));
  return name;
}

function toCount(e: Entry): VisitCount {
  const { linkId, accountId, source, country, referrer, count } = e;
  return { linkId, accountId, day: dayName(e.dayNumber), source, country, device: e.ua.device, browser: e.ua.browser, bot: e.ua.bot, referrer, count };
}
