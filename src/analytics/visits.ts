import { DAY_MS, utcDay } from '../platform/time.js';
import type { CountMaps, LinkRef, Recorded, Source, VisitClass } from './ports.js';

/**
 * Trial links have no account; grouped under a key that sorts after every account id (UUIDs are
 * hex), they take what the daily ceiling has left after accounts, not before them.
 */
export const TRIAL_GROUP = '~trial';

/**
 * One link's visits of one day: per dimension, the visits of each value, values in order of their
 * first visit. The visitor class stands for device, browser and bot together.
 */
interface LinkVisits {
  link: LinkRef;
  visits: number;
  s: number;
  q: number;
  countries: Map<string, number>;
  visitors: Map<VisitClass, number>;
  referrers: Map<string, number>;
}

const bump = <K>(counts: Map<K, number>, key: K, n: number) => counts.set(key, (counts.get(key) ?? 0) + n);

/** Lets pending redirects be answered between two slices of a long piece of recording work. */
export const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Visits folded into the counts, or links granted, between two breaths: each slice takes a fraction of
 * a millisecond, so a redirect that arrives during a flush waits no longer than that (the p99 of
 * `npm run bench:redirect`).
 */
const SLICE = 128;

/**
 * The visits of one UTC day not yet flushed. A redirect appends its visit to a list (five references:
 * no lookup on the redirect path); the flush first folds the list into counts per link and dimension
 * value (tally), whose size grows with links and distinct values, not with visits. Links keep the
 * order of their first visit, which is the order in which an allowance that runs out grants them.
 */
export class DayVisits {
  readonly links = new Map<string, LinkVisits>();
  visits = 0;
  /** Visits not yet tallied: link, source, country, visitor, referrer, one after another. */
  private list: unknown[] = [];

  constructor(
    readonly day: string,
    /** Time of the first visit: refusals are reported from here. */
    public from: number,
  ) {}

  add(link: LinkRef, source: Source, country: string, visitor: VisitClass, referrer: string): void {
    this.list.push(link, source, country, visitor, referrer);
    this.visits++;
  }

  /** Folds the listed visits into the counts, a slice at a time. */
  async tally(): Promise<void> {
    const list = this.list;
    this.list = [];
    for (let i = 0; i < list.length; i += 5) {
      const own = this.of(list[i] as LinkRef);
      if (list[i + 1] === 's') own.s++;
      else own.q++;
      bump(own.countries, list[i + 2] as string, 1);
      bump(own.visitors, list[i + 3] as VisitClass, 1);
      bump(own.referrers, list[i + 4] as string, 1);
      own.visits++;
      if ((i / 5) % SLICE === SLICE - 1) await breathe();
    }
  }

  /** Adds the visits of a later buffer of the same day after these (a failed flush's visits keep their place). */
  append(later: DayVisits): void {
    this.list = this.list.concat(later.list);
    this.visits += later.list.length / 5;
    for (const other of later.links.values()) {
      const own = this.of(other.link);
      own.s += other.s;
      own.q += other.q;
      for (const [country, n] of other.countries) bump(own.countries, country, n);
      for (const [visitor, n] of other.visitors) bump(own.visitors, visitor, n);
      for (const [referrer, n] of other.referrers) bump(own.referrers, referrer, n);
      own.visits += other.visits;
      this.visits += other.visits;
    }
    this.from = Math.min(this.from, later.from);
  }

  private of(link: LinkRef): LinkVisits {
    let own = this.links.get(link.id);
    if (own === undefined) {
      own = { link, visits: 0, s: 0, q: 0, countries: new Map(), visitors: new Map(), referrers: new Map() };
      this.links.set(link.id, own);
    }
    return own;
  }

  /** Visits per account (trial links as TRIAL_GROUP), accounts in ascending order: the lock order. */
  accountTotals(): [string, number][] {
    const totals = new Map<string, number>();
    for (const { link, visits } of this.links.values()) bump(totals, link.accountId ?? TRIAL_GROUP, visits);
    return [...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /**
   * What is recorded when each account may record `granted` of its visits: its links in order of
   * their first visit, until the grant is used up; the rest is refused, per link, with the account
   * group that refused it. A link cut short keeps, in every dimension, its values in order of their
   * first visit (`s` before `q`), up to the visits granted.
   */
  async grant(granted: Map<string, number>): Promise<{ recorded: Recorded[]; refused: Map<string, { account: string; count: number }> }> {
    const left = new Map(granted);
    const recorded: Recorded[] = [];
    const refused = new Map<string, { account: string; count: number }>();
    let n = 0;
    for (const own of this.links.values()) {
      if (++n % SLICE === 0) await breathe();
      const account = own.link.accountId ?? TRIAL_GROUP;
      const take = Math.min(own.visits, left.get(account) ?? 0);
      left.set(account, (left.get(account) ?? 0) - take);
      if (take > 0) recorded.push({ linkId: own.link.id, day: this.day, visits: take, counts: countsOf(own, take) });
      if (take < own.visits) refused.set(own.link.id, { account, count: own.visits - take });
    }
    return { recorded, refused };
  }
}

/** The first values of `counts` whose visits add up to `limit`, the last one cut to fit. */
function first<K>(counts: Iterable<[K, number]>, limit: number): [K, number][] {
  const taken: [K, number][] = [];
  let left = limit;
  for (const [key, n] of counts) {
    if (left === 0) break;
    taken.push([key, Math.min(n, left)]);
    left -= Math.min(n, left);
  }
  return taken;
}

/** A link's counts as a rollup keeps them, of its first `limit` visits in every dimension. */
function countsOf(own: LinkVisits, limit: number): CountMaps {
  const all = limit >= own.visits;
  const source = new Map<string, number>();
  for (const [value, n] of first<Source>(
    [
      ['s', own.s],
      ['q', own.q],
    ],
    limit,
  ))
    if (n > 0) source.set(value, n);
  // The link's own maps where it is recorded whole: a flush only reads them, and a failed flush keeps them unchanged.
  const counts: CountMaps = {
    source,
    country: all ? own.countries : new Map(first(own.countries, limit)),
    device: new Map(),
    browser: new Map(),
    bot: new Map(),
  };
  for (const [visitor, n] of all ? own.visitors : first(own.visitors, limit)) {
    bump(counts.device!, visitor.device, n);
    bump(counts.browser!, visitor.browser, n);
    bump(counts.bot!, visitor.bot ? 'yes' : 'no', n);
  }
  counts.referrer = all ? own.referrers : new Map(first(own.referrers, limit));
  return counts;
}

/** Visits recorded per link, over the days of a flush. */
export function visitsPerLink(recorded: Recorded[]): Map<string, number> {
  const visits = new Map<string, number>();
  for (const r of recorded) visits.set(r.linkId, (visits.get(r.linkId) ?? 0) + r.visits);
  return visits;
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

  /** Folds every day's listed visits into its counts (DayVisits.tally). */
  async tally(): Promise<void> {
    for (const day of this.days.values()) await day.tally();
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

  /** The days, ascending. */
  sorted(): DayVisits[] {
    return [...this.days.values()].sort((a, b) => (a.day < b.day ? -1 : 1));
  }

  private turnTo(time: number): void {
    this.todayStart = Math.floor(time / DAY_MS) * DAY_MS;
    const day = utcDay(time);
    let visits = this.days.get(day);
    if (visits === undefined) this.days.set(day, (visits = new DayVisits(day, time)));
    this.today = visits;
  }
}
