import { DAY_MS, HOUR_MS, QUARTER_MS } from '../platform/time.js';

/** Whether `name` is an IANA zone the runtime knows (any case); offsets such as `+05:30`, which newer runtimes accept, are refused. */
export function isZone(name: string): boolean {
  if (!/^[A-Za-z][\w+-]*(?:\/[\w+-]+)*$/.test(name) || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Local dates and hours of a zone. Every offset is a whole number of quarter hours, so each UTC quarter hour of the counts is in one local hour. */
export class ZoneClock {
  private readonly offsets = new Map<number, number>();
  private readonly days = new Map<number, { dates: Int32Array; hours: Uint8Array }>();
  private readonly format: Intl.DateTimeFormat;

  constructor(zone: string) {
    this.format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  }

  /** `YYYY-MM-DD` and the hour (0 to 23) of `time` on the zone's clock. */
  local(time: number): { date: string; hour: number } {
    const local = new Date(time + this.offset(time));
    return { date: local.toISOString().slice(0, 10), hour: local.getUTCHours() };
  }

  /** The first instant of the local date `date` (midnight, or the first time after it where a change of offset skips midnight). */
  startOf(date: string): number {
    const midnight = Date.parse(`${date}T00:00:00Z`);
    let guess = midnight - this.offset(midnight);
    // An offset that changes between the guess and midnight UTC: once more with the offset at the guess.
    guess = midnight - this.offset(guess);
    return this.local(guess).date === date ? guess : guess + (this.offset(guess + DAY_MS / 24) - this.offset(guess));
  }

  /** The zone's offset from UTC at `time` (east positive), in milliseconds: from its name, `GMT+05:30` (`GMT` or `GMT+00:00` at 0). */
  offset(time: number): number {
    const hour = Math.floor(time / HOUR_MS);
    let offset = this.offsets.get(hour);
    if (offset === undefined) {
      const name = this.format.formatToParts(time).find((part) => part.type === 'timeZoneName')!.value;
      const [, sign, hours, minutes] = /^GMT(?:([+-])(\d\d):(\d\d))?$/.exec(name) ?? [];
      offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes)) * 60_000;
      if (this.offsets.size >= 100_000) this.offsets.clear();
      this.offsets.set(hour, offset);
    }
    return offset;
  }

  /** Local date (days since 1970) and hour of each UTC quarter hour of the day from `midnight`; cached, as every read asks for the same days. */
  quarters(midnight: number): { dates: Int32Array; hours: Uint8Array } {
    let places = this.days.get(midnight);
    if (places === undefined) {
      // A zone's offset changes at most once a day: the same at both ends, it holds all day.
      const offset = this.offset(midnight);
      const steady = offset === this.offset(midnight + DAY_MS - 1);
      places = { dates: new Int32Array(96), hours: new Uint8Array(96) };
      for (let quarter = 0; quarter < 96; quarter++) {
        const time = midnight + quarter * QUARTER_MS;
        const local = time + (steady ? offset : this.offset(time));
        places.dates[quarter] = Math.floor(local / DAY_MS);
        places.hours[quarter] = Math.floor((local % DAY_MS) / HOUR_MS);
      }
      if (this.days.size >= 10_000) this.days.clear();
      this.days.set(midnight, places);
    }
    return places;
  }
}
