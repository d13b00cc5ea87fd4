import { DAY_MS, utcDay } from '../platform/time.js';
import type { Counts, Dimension, LinkRef, Recorded, Source, VisitClass } from './ports.js';

/**
 * Trial links have no account; grouped under a key that sorts after every account id (UUIDs are
 * hex), they take what the daily ceiling has left after accounts, not before them.
 */
export const TRIAL_GROUP = '~trial';

/** Visits alike in every dimension; `n` of them. */
interface Kind {
  source: Source;
  country: string;
  visitor: VisitClass;
  referrer: string;
  n: number;
}

/** One link's visits of one day, by kind in order of first arrival. */
interface LinkVisits {
  link: LinkRef;
  visits: number;
  kinds: Map<string, Kind>;
}

/**
 * The visits of one UTC day not yet flushed, counted per link and kind of visit: memory grows with
 * the distinct kinds, not with the visits. Links keep the order of their first visit, which is the
 * order in which an allowance that runs out grants them (grant).
 */
export class DayVisits {
  readonly links = new Map<string, LinkVisits>();
  visits = 0;

  constructor(
    readonly day: string,
    /** Time of the first visit: refusals are reported from here. */
    public from: number,
  ) {}

  add(link: LinkRef, source: Source, country: string, visitor: VisitClass, referrer: string, n = 1): void {
    let own = this.links.get(link.id);
    if (own === undefined) this.links.set(link.id, (own = { link, visits: 0, kinds: new Map() }));
    // Referrers are host names (letters, digits, `-`, `_`, dots) or a word, countries two letters.
    const key = `${source}|${visitor.device}|${visitor.browser}|${visitor.bot ? 1 : 0}|${country}|${referrer}`;
    const kind = own.kinds.get(key);
    if (kind === undefined) own.kinds.set(key, { source, country, visitor, referrer, n });
    else kind.n += n;
    own.visits += n;
    this.visits += n;
  }

  /** Adds the visits of a later buffer of the same day after these (a failed flush's visits keep their place). */
  append(later: DayVisits): void {
    for (const { link, kinds } of later.links.values()) {
      for (const k of kinds.values()) this.add(link, k.source, k.country, k.visitor, k.referrer, k.n);
    }
    this.from = Math.min(this.from, later.from);
  }

  /** Visits per account (trial links as TRIAL_GROUP), accounts in ascending order: the lock order. */
  accountTotals(): [string, number][] {
    const totals = new Map<string, number>();
    for (const { link, visits } of this.links.values()) {
      const account = link.accountId ?? TRIAL_GROUP;
      totals.set(account, (totals.get(account) ?? 0) + visits);
    }
    return [...totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /**
   * What is recorded when each account may record `granted` of its visits: its links in order of
   * their first visit, each link's kinds in order of arrival, until the grant is used up; the rest is
   * refused, per link, with the account group that refused it.
   */
  grant(granted: Map<string, number>): { recorded: Recorded[]; refused: Map<string, { account: string; count: number }> } {
    const left = new Map(granted);
    const recorded: Recorded[] = [];
    const refused = new Map<string, { account: string; count: number }>();
    for (const { link, visits, kinds } of this.links.values()) {
      const account = link.accountId ?? TRIAL_GROUP;
      const take = Math.min(visits, left.get(account) ?? 0);
      left.set(account, (left.get(account) ?? 0) - take);
      if (take > 0) recorded.push({ linkId: link.id, day: this.day, visits: take, counts: countsOf(kinds.values(), take) });
      if (take < visits) refused.set(link.id, { account, count: visits - take });
    }
    return { recorded, refused };
  }
}

/** The counts of the first `limit` visits of these kinds. */
function countsOf(kinds: Iterable<Kind>, limit: number): Counts {
  const counts: Counts = {};
  const add = (dimension: Dimension, value: string, n: number) => {
    const values = (counts[dimension] ??= valueMap());
    values[value] = (values[value] ?? 0) + n;
  };
  let left = limit;
  for (const k of kinds) {
    const n = Math.min(k.n, left);
    add('source', k.source, n);
    add('country', k.country, n);
    add('device', k.visitor.device, n);
    add('browser', k.visitor.browser, n);
    add('referrer', k.referrer, n);
    add('bot', k.visitor.bot ? 'yes' : 'no', n);
    left -= n;
    if (left === 0) break;
  }
  return counts;
}

/** Visits recorded per link, over the days of a flush. */
export function visitsPerLink(recorded: Recorded[]): Map<string, number> {
  const visits = new Map<string, number>();
  for (const r of recorded) visits.set(r.linkId, (visits.get(r.linkId) ?? 0) + r.visits);
  return visits;
}

/** A map of values to visits without a prototype (see Counts). */
export const valueMap = (): Record<string, number> => Object.create(null) as Record<string, number>;

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
