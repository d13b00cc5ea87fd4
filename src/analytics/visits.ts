import { DAY_MS, utcDay } from '../platform/time.js';
import type { CountMaps, LinkRef, Recorded, Shortfall, Source, VisitClass } from './ports.js';

/** Trial links' group: it sorts after every account id (hex UUIDs), so takes what the ceiling leaves. */
export const TRIAL_GROUP = '~trial';

/** One link's visits of one day: how many, and its first and last in the day's list. */
interface LinkVisits {
  link: LinkRef;
  visits: number;
  first: number;
  last: number;
}

const bump = <K>(counts: Map<K, number>, key: K, n: number) => counts.set(key, (counts.get(key) ?? 0) + n);

/**
 * How long recording work holds the event loop before waiting redirects are answered. Under load each
 * breath costs the flush a turn of the event loop, so it breathes per slice of time, not per step.
 */
const SLICE_MS = 1;
let sliceStarted = performance.now();

/** Lets pending redirects be answered once the current slice of recording work has run SLICE_MS. */
export async function breathe(): Promise<void> {
  if (performance.now() - sliceStarted < SLICE_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  sliceStarted = performance.now();
}

/** Visits grouped, or links granted, between two looks at the clock (breathe). */
export const SLICE = 128;

/** Fields of a visit in the day's list. */
const FIELDS = 5;

/**
 * The visits of one UTC day not yet flushed. A redirect appends its visit to a list (no lookup); the
 * flush groups it by link (tally), links in the order of their first visit (the order an allowance
 * grants them), each link's visits chained in an Int32Array. Counts are summed from a chain only as its
 * row is written, so a flush holds no young counts for the minor collections to copy (ADR 0042).
 */
export class DayVisits {
  /** After a tally: the links, in the order of their first visit. */
  links = new Map<string, LinkVisits>();
  visits = 0;
  /** Link, source, country, visitor, referrer of each visit, one visit after another. */
  private list: unknown[] = [];
  /** After a tally: for each visit but a link's last, the index of the link's next visit. */
  private next = new Int32Array(0);

  constructor(
    readonly day: string,
    /** Time of the first visit: refusals are reported from here. */
    public from: number,
  ) {}

  add(link: LinkRef, source: Source, country: string, visitor: VisitClass, referrer: string): void {
    this.list.push(link, source, country, visitor, referrer);
    this.visits++;
  }

  /** Groups the visits by link, a slice at a time. Tallying again groups every visit anew. */
  async tally(): Promise<void> {
    const links = new Map<string, LinkVisits>();
    const next = new Int32Array(this.visits);
    for (let v = 0; v < this.visits; v++) {
      const link = this.list[FIELDS * v] as LinkRef;
      const own = links.get(link.id);
      if (own === undefined) links.set(link.id, { link, visits: 1, first: v, last: v });
      else {
        next[own.last] = v;
        own.last = v;
        own.visits++;
      }
      if (v % SLICE === SLICE - 1) await breathe();
    }
    this.links = links;
    this.next = next;
  }

  /** Adds the visits of a later buffer of the same day after these (a failed flush's visits keep their place); tally again. */
  append(later: DayVisits): void {
    this.list = this.list.concat(later.list);
    this.visits += later.visits;
    this.links = new Map();
    this.from = Math.min(this.from, later.from);
  }

  /** Visits per account (trial links as TRIAL_GROUP), accounts in ascending order: the lock order. */
  accountTotals(): [string, number][] {
    const totals = new Map<string, number>();
    for (const { link, visits } of this.links.values()) bump(totals, link.accountId ?? TRIAL_GROUP, visits);
    return [...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /**
   * What is recorded when each account may record `granted` of its visits: its links in order of first
   * visit until the grant is used up (a link cut short, its first visits); the rest is refused per link.
   * Adds the visits recorded to `perLink` when given (the flush's own grant; not the early write's).
   */
  async grant(granted: Map<string, number>, perLink?: Map<string, number>) {
    const left = new Map(granted);
    const recorded: Recorded[] = [];
    const refused = new Map<string, { account: string; count: number }>();
    let n = 0;
    for (const own of this.links.values()) {
      if (++n % SLICE === 0) await breathe();
      const account = own.link.accountId ?? TRIAL_GROUP;
      const take = Math.min(own.visits, left.get(account) ?? 0);
      left.set(account, (left.get(account) ?? 0) - take);
      if (take > 0) {
        recorded.push(new GrantedVisits(this.day, account, own, take, this.list, this.next));
        if (perLink) bump(perLink, own.link.id, take);
      }
      if (take < own.visits) refused.set(own.link.id, { account, count: own.visits - take });
    }
    return { recorded, refused };
  }
}

/** The first `visits` visits of a link, summed into counts per dimension when its rollup row is written. */
class GrantedVisits implements Recorded {
  readonly linkId: string;

  constructor(
    readonly day: string,
    readonly account: string,
    private readonly own: LinkVisits,
    readonly visits: number,
    private readonly list: unknown[],
    private readonly next: Int32Array,
  ) {
    this.linkId = own.link.id;
  }

  rollup(): ReturnType<Recorded['rollup']> {
    const { list, next } = this;
    const counts: CountMaps = { source: new Map(), country: new Map(), device: new Map(), browser: new Map(), referrer: new Map(), bot: new Map() };
    let s = 0;
    for (let n = 0, v = this.own.first; n < this.visits; n++, v = next[v]!) {
      const at = FIELDS * v;
      if (list[at + 1] === 's') s++;
      bump(counts.country, list[at + 2] as string, 1);
      const visitor = list[at + 3] as VisitClass;
      bump(counts.device, visitor.device, 1);
      bump(counts.browser, visitor.browser, 1);
      bump(counts.bot, visitor.bot ? 'yes' : 'no', 1);
      bump(counts.referrer, list[at + 4] as string, 1);
    }
    const q = this.visits - s;
    if (s > 0) counts.source.set('s', s);
    if (q > 0) counts.source.set('q', q);
    return { s, q, counts };
  }
}

/** Visits not yet flushed, per UTC day (almost always one). */
export class PendingVisits {
  readonly days = new Map<string, DayVisits>();
  visits = 0;
  /** The day of the last visit, and where it starts and ends, so a visit rarely names its day. */
  private today: DayVisits | undefined;
  private todayStart = 0;

  add(link: LinkRef, source: Source, country: string, visitor: VisitClass, referrer: string, time: number): void {
    if (this.today === undefined || time < this.todayStart || time >= this.todayStart + DAY_MS) this.turnTo(time);
    this.today!.add(link, source, country, visitor, referrer);
    this.visits++;
  }

  /** Adds a later buffer's visits after these. */
  append(later: PendingVisits): void {
    for (const day of later.days.values()) {
      const known = this.days.get(day.day);
      if (known === undefined) this.days.set(day.day, day);
      else known.append(day);
    }
    this.visits += later.visits;
    this.today = undefined;
  }

  /** The days, ascending, each with its visits grouped by link (DayVisits.tally). */
  async tallied(): Promise<DayVisits[]> {
    const days = [...this.days.values()].sort((a, b) => (a.day < b.day ? -1 : 1));
    for (const day of days) await day.tally();
    return days;
  }

  private turnTo(time: number): void {
    this.todayStart = Math.floor(time / DAY_MS) * DAY_MS;
    const day = utcDay(time);
    let visits = this.days.get(day);
    if (visits === undefined) this.days.set(day, (visits = new DayVisits(day, time)));
    this.today = visits;
  }
}

/** Adds visits not recorded to `into`, one entry per link and reason: counts add up, the span widens. */
export function addShortfall(into: Map<string, Shortfall>, s: Shortfall): void {
  const key = `${s.linkId ?? ''}|${s.reason}`;
  const known = into.get(key);
  if (known === undefined) return void into.set(key, { ...s });
  known.count += s.count;
  known.from = Math.min(known.from, s.from);
  known.to = Math.max(known.to, s.to);
}
