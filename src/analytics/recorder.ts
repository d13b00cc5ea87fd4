import { DAY_MS, utcDay, type Clock } from '../platform/time.js';
import { VisitClassifier } from './classify.js';
import { DayVisits } from './day-visits.js';
import { LinkTable, type LinkRef } from './link-table.js';
import type { Handover, RecordingBackend, Shortfall, Source } from './ports.js';
import { addShortfall } from './recording-loop.js';

export interface RecorderOptions {
  backend: RecordingBackend;
  now: Clock;
  flushIntervalMs: number;
  /** Visits held in memory (buffered here or waiting in the backend); visits beyond are dropped and reported as a gap. */
  bufferMaxVisits: number;
  onError: (error: unknown) => void;
}

/**
 * Records visits off the redirect's critical path: `record` appends three words to the day's buffer
 * (day-visits.ts: no object, no key string per visit); at least once a second the buffered visits are
 * handed to the backend (recording-loop.ts), which makes them durable on its own thread. While the
 * database fails the backend keeps them; past `bufferMaxVisits` held in all, visits are dropped and
 * reported as a gap.
 */
export class VisitRecorder {
  readonly classifier = new VisitClassifier();
  /** Buffered visits per UTC day number; almost always one day. */
  private days = new Map<number, DayVisits>();
  private dayNumber = -1;
  /** Links of the day buffers, shared by all of them (link-table.ts). */
  private table = new LinkTable();
  private day: DayVisits = new DayVisits('', 0, 1);
  /** Visits of the last day buffer taken: the next one starts that large, so it need not grow. */
  private lastCount = 1024;
  private buffered = 0;
  /** Visits handed to the backend so far; those it has not released are still held. */
  private handedOver = 0;
  private dropped = new Map<string | null, Shortfall>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: RecorderOptions) {}

  /** A visit at time `t` (the redirect's clock reading). */
  record(link: LinkRef, source: Source, userAgent: string | undefined, referer: string | undefined, country: string, t: number): void {
    if (this.buffered + this.handedOver - this.o.backend.released >= this.o.bufferMaxVisits) return this.drop(link.id, t);
    const dayNumber = Math.floor(t / DAY_MS);
    const day = dayNumber === this.dayNumber ? this.day : this.dayOf(dayNumber, t);
    // False only past 65,536 distinct visitor classes or 32,768 countries in a day: never in practice.
    if (!day.addLink(link, source, country, this.classifier.userAgent(userAgent), this.classifier.referrer(referer))) return this.drop(link.id, t);
    this.buffered++;
  }

  private dayOf(dayNumber: number, t: number): DayVisits {
    let day = this.days.get(dayNumber);
    if (!day) this.days.set(dayNumber, (day = new DayVisits(utcDay(dayNumber * DAY_MS), t, this.lastCount, this.table)));
    this.dayNumber = dayNumber;
    this.day = day;
    return day;
  }

  /**
   * Starts the backend, which registers this instance and reports instances that died silently, and
   * the ticks. Not waited for: the recording thread takes a moment to load, and the server can take
   * visits meanwhile (they wait in the buffer; the thread handles requests in order). What dead
   * instances flushed is folded by the first tick: a large backlog must not delay the start either.
   */
  start(): void {
    this.o.backend.start(this.o.now()).catch(this.o.onError);
    this.timer = setInterval(() => this.o.backend.tick(this.handover()).catch(this.o.onError), this.o.flushIntervalMs);
    this.timer.unref();
  }

  /** Flushes everything recorded so far and brings the rollups up to date (tests, shutdown). */
  flush(): Promise<void> {
    return this.o.backend.flush(this.handover());
  }

  /** Final flush before the database closes. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.o.backend.stop(this.handover()).catch(this.o.onError);
  }

  /** The visits buffered since the last handover; the buffer starts over. */
  private handover(): Handover {
    const days = [...this.days.values()].filter((d) => d.count > 0);
    if (this.day.count > 0) this.lastCount = this.day.count;
    this.handedOver += this.buffered;
    this.buffered = 0;
    this.days = new Map();
    this.dayNumber = -1;
    // The buffers handed over keep the old table; the next ones start a new one.
    if (this.table.size > LinkTable.MAX_LINKS) this.table = new LinkTable();
    const dropped = [...this.dropped.values()];
    this.dropped = new Map();
    return { now: this.o.now(), days, dropped };
  }

  private drop(linkId: string, t: number): void {
    addShortfall(this.dropped, linkId, 1, t, t);
  }
}
