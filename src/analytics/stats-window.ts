import { DAY_MS, utcDay } from '../platform/time.js';
import type { CountRow, Source } from './ports.js';
import { ZoneClock } from './zones.js';

/** What a stats request asks for, beyond its link. */
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
/** A clock per zone, kept: each remembers the offsets it looked up. Bounded by the zones that exist. */
const clockOf = (zone: string) => clocks.get(zone) ?? clocks.set(zone, new ZoneClock(zone)).get(zone)!;

const HOUR_MS = 3_600_000;
const dateAdd = (date: string, days: number) => utcDay(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS);

/**
 * The window of a request: its `days` days in the zone, today included, from the first one's midnight
 * to now; the UTC days that hold it; and which of a count's four columns it takes.
 */
export class StatsWindow {
  readonly clock: ZoneClock;
  readonly from: number;
  readonly dates: string[];
  readonly fromDay: string;
  readonly toDay: string;
  /** Whether the zone's offset in the window is not a whole number of hours: its hours need the counts' quarter hours. */
  readonly quarters: boolean;
  /** Indexes into CountRow.n: /s/, /q/, bots through /s/, bots through /q/, as the request narrows them. */
  readonly columns: number[];

  constructor(
    readonly request: StatsRequest,
    readonly to: number,
  ) {
    this.clock = clockOf(request.tz ?? 'UTC');
    const today = this.clock.local(to).date;
    this.dates = Array.from({ length: request.days }, (_, i) => dateAdd(today, i - request.days + 1));
    this.from = this.clock.startOf(this.dates[0]!);
    this.fromDay = utcDay(this.from);
    this.toDay = utcDay(to);
    this.quarters = this.clock.offset(this.from) % HOUR_MS !== 0 || this.clock.offset(to) % HOUR_MS !== 0;
    this.columns = [0, 1, 2, 3].filter(
      (c) => (request.source === undefined || c % 2 === (request.source === 's' ? 0 : 1)) && (request.bots === 'include' || c < 2),
    );
  }

  /** The visits of a count that the request takes. */
  sum(row: CountRow): number {
    let n = 0;
    for (const c of this.columns) n += row.n[c]!;
    return n;
  }

  /** The daily series, from the counts of dimension `time` (UTC quarter hours) of the window's UTC days. */
  daily(rows: CountRow[]): Day[] {
    const days = new Map(this.dates.map((date) => [date, { date, total: 0, s: 0, q: 0, bots: 0, visitors: 0, hours: new Array<number>(24).fill(0) }]));
    for (const row of rows) {
      const time = Date.parse(`${row.day}T${row.value}:00Z`);
      if (row.dimension !== 'time' || time < this.from || time > this.to) continue;
      const at = this.clock.local(time);
      const day = days.get(at.date);
      if (day === undefined) continue;
      for (const c of this.columns) {
        const n = row.n[c]!;
        day.total += n;
        day.hours[at.hour]! += n;
        if (c % 2 === 0) day.s += n;
        else day.q += n;
        if (c >= 2) day.bots += n;
      }
    }
    return [...days.values()];
  }
}
