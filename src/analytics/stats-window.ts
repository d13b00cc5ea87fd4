import { DAY_MS, QUARTER_MS, utcDay } from '../platform/time.js';
import { dayNumber, dayOfNumber } from './counts.js';
import type { LinkDay, Source } from './ports.js';
import { ZoneClock } from './zones.js';

export interface StatsRequest {
  days: number;
  source?: Source;
  bots: 'include' | 'exclude';
  /** An IANA zone (already checked), or undefined for UTC. */
  tz?: string;
}

/** One day of the answer, in the request's zone. */
export interface Day {
  date: string;
  total: number;
  s: number;
  q: number;
  bots: number;
  visitors: number;
  hours: number[];
}

const clocks = new Map<string, ZoneClock>();
/** Clocks are kept for the offsets they remember; the zones that exist bound the map. */
const clockOf = (zone: string) => clocks.get(zone) ?? clocks.set(zone, new ZoneClock(zone)).get(zone)!;

const dateAdd = (date: string, days: number) => dayOfNumber(dayNumber(date) + days);

/** A request's `days` local days, today included, from the first one's midnight to now; the UTC days that hold them; the columns it takes. */
export class StatsWindow {
  readonly clock: ZoneClock;
  readonly from: number;
  readonly dates: string[];
  readonly fromDay: string;
  readonly toDay: string;
  /** Indexes into a count's columns: /s/, /q/, bots through /s/, bots through /q/, as the request narrows them. */
  readonly columns: number[];
  /** The same columns, a bit each (LinkDay.visitors). */
  readonly mask: number;
  /** What the window's sums depend on besides the days (StatsService.sums): zone, start, length and columns. */
  readonly shape: string;
  /** The first local date of the window, in days since 1970. */
  private readonly first: number;

  constructor(
    readonly request: StatsRequest,
    readonly to: number,
  ) {
    this.clock = clockOf(request.tz ?? 'UTC');
    const today = this.clock.local(to).date;
    this.dates = Array.from({ length: request.days }, (_, i) => dateAdd(today, i - request.days + 1));
    this.from = this.clock.startOf(this.dates[0]!);
    this.first = dayNumber(this.dates[0]!);
    this.fromDay = utcDay(this.from);
    this.toDay = utcDay(to);
    this.columns = [0, 1, 2, 3].filter(
      (c) => (request.source === undefined || c % 2 === (request.source === 's' ? 0 : 1)) && (request.bots === 'include' || c < 2),
    );
    this.mask = this.columns.reduce((mask, c) => mask | (1 << c), 0);
    this.shape = `${request.tz ?? 'UTC'}\t${this.from}\t${request.days}\t${this.mask}`;
  }

  /** The request's visits of the count whose four columns start at `counts[at]`. */
  sum(counts: readonly (string | number)[], at: number): number {
    let sum = 0;
    for (const c of this.columns) sum += counts[at + c] as number;
    return sum;
  }

  emptyDays(): Day[] {
    return this.dates.map((date) => ({ date, total: 0, s: 0, q: 0, bots: 0, visitors: 0, hours: new Array<number>(24).fill(0) }));
  }

  /** The daily series of these UTC days. */
  daily(linkDays: readonly LinkDay[]): Day[] {
    const days = this.emptyDays();
    this.addDays(days, linkDays);
    return days;
  }

  /** A UTC day's unique visitors are one estimate (the salt changes at midnight UTC), shared among its local dates by their visits. */
  addDays(days: Day[], linkDays: readonly LinkDay[]): void {
    const { columns, first, from, to } = this;
    for (const linkDay of linkDays) {
      const midnight = dayNumber(linkDay.day) * DAY_MS;
      const { dates, hours } = this.clock.quarters(midnight);
      const n = linkDay.quarters;
      // Per local date the UTC day reaches (from its first), the day's visits there.
      const visits = new Array<number>(dates[95]! - dates[0]! + 1).fill(0);
      for (let quarter = 0; quarter < 96; quarter++) {
        let all = 0;
        let s = 0;
        let bots = 0;
        for (let i = 0; i < columns.length; i++) {
          const c = columns[i]!;
          const count = n[4 * quarter + c]!;
          all += count;
          if (c % 2 === 0) s += count;
          if (c >= 2) bots += count;
        }
        if (all === 0) continue;
        visits[dates[quarter]! - dates[0]!]! += all;
        const day = days[dates[quarter]! - first];
        const time = midnight + quarter * QUARTER_MS;
        if (day === undefined || time < from || time > to) continue;
        day.total += all;
        day.hours[hours[quarter]!]! += all;
        day.s += s;
        day.q += all - s;
        day.bots += bots;
      }
      share(linkDay.visitors(this.mask), visits).forEach((visitors, at) => {
        const day = days[dates[0]! - first + at];
        if (day !== undefined) day.visitors += visitors;
      });
    }
  }

  /** Shares a UTC day's visitors by the visits of one or more links (`quarters`) as addDays does; only the window's dates count. */
  visitorsInWindow(day: string, quarters: readonly ArrayLike<number>[], visitors: number): number {
    const { dates } = this.clock.quarters(dayNumber(day) * DAY_MS);
    const visits = new Array<number>(dates[95]! - dates[0]! + 1).fill(0);
    for (let quarter = 0; quarter < 96; quarter++) for (const n of quarters) visits[dates[quarter]! - dates[0]!]! += this.sum(n as number[], 4 * quarter);
    return share(visitors, visits).reduce((sum, shared, at) => sum + (this.dates[dates[0]! - this.first + at] === undefined ? 0 : shared), 0);
  }
}

/** Largest remainder (the earlier date first on a tie): the shares add up to `visitors` and a date without visits gets none (ADR 0067). */
function share(visitors: number, visits: readonly number[]): number[] {
  const all = visits.reduce((sum, n) => sum + n, 0);
  if (all === 0) return [];
  const exact = visits.map((n) => (visitors * n) / all);
  const shares = exact.map(Math.floor);
  let left = visitors - shares.reduce((sum, n) => sum + n, 0);
  for (const at of exact.map((_, at) => at).sort((x, y) => exact[y]! - shares[y]! - (exact[x]! - shares[x]!) || x - y)) if (left-- > 0) shares[at]!++;
  return shares;
}
