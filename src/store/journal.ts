import type { DeviceClass, Source, VisitCount } from '../domain/analytics/ports.js';

/**
 * A flushed batch is stored as one compact text value: a string table and rows of indexes into it. Link
 * ids, days and referrers repeat across thousands of counts, so this is several times smaller than
 * plain JSON objects, which keeps the once-a-second write cheap.
 */
type Row = [link: number, day: number, source: number, country: number, device: number, browser: number, bot: 0 | 1, referrer: number, count: number];

/**
 * Roll-up buckets. A pass folds one bucket in one transaction, so it touches about 1/64 of the links
 * of a busy interval: on SQLite, where every query waits for a running transaction, none waits long.
 */
export const BUCKETS = 64;

/** Link ids are random UUIDs: their last two hex digits spread links evenly. */
export const bucketOf = (linkId: string): number => (parseInt(linkId.slice(-2), 16) || 0) % BUCKETS;

export function encodeJournal(counts: VisitCount[]): string {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const id = (value: string): number => {
    let i = index.get(value);
    if (i === undefined) {
      i = strings.length;
      strings.push(value);
      index.set(value, i);
    }
    return i;
  };
  const rows: Row[] = counts.map((c) => [
    id(c.linkId), id(c.day), id(c.source), id(c.country), id(c.device), id(c.browser), c.bot ? 1 : 0, id(c.referrer), c.count,
  ]);
  return JSON.stringify({ s: strings, r: rows });
}

/** Decoded counts carry no account: roll-up only needs the link. */
export function decodeJournal(text: string): Omit<VisitCount, 'accountId'>[] {
  const { s, r } = JSON.parse(text) as { s: string[]; r: Row[] };
  return r.map(([link, day, source, country, device, browser, bot, referrer, count]) => ({
    linkId: s[link]!,
    day: s[day]!,
    source: s[source] as Source,
    country: s[country]!,
    device: s[device] as DeviceClass,
    browser: s[browser]!,
    bot: bot === 1,
    referrer: s[referrer]!,
    count,
  }));
}
