import { formatNumber, share } from '../../ui/format.js';
import type { Stats, StatsFilters } from './use-stats.js';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** Parts of a day, six hours each. Hours 0 to 5 are the early hours of their day: "Sunday night" would read as Sunday evening's night. */
const PARTS = ['early hours', 'morning', 'afternoon', 'evening'];
const DEVICE_WORDS: Record<string, string> = { mobile: 'phones', tablet: 'tablets', desktop: 'computers', bot: 'bots', other: 'other devices' };

/** The weekday and part of the day (early hours 0-5, morning 6-11, afternoon 12-17, evening 18-23) with the most visits. */
export function busiestTime(stats: Stats): { day: string; part: string; count: number } | undefined {
  const sums = new Map<string, number>();
  for (const day of stats.daily) {
    const weekday = DAYS[new Date(`${day.date}T00:00:00Z`).getUTCDay()]!;
    day.hours.forEach((count, hour) => {
      const key = `${weekday}\t${PARTS[Math.floor(hour / 6)]}`;
      sums.set(key, (sums.get(key) ?? 0) + count);
    });
  }
  const [key, count] = [...sums].reduce((best, entry) => (entry[1] > best[1] ? entry : best), ['', 0] as [string, number]);
  if (count === 0) return undefined;
  const [day, part] = key.split('\t') as [string, string];
  return { day, part, count };
}

/**
 * One sentence a person reads at a glance: where the visits came through, when, and from what.
 * ("Most visits came through the QR code (75%), most often on Saturday afternoon, from phones.")
 */
export function summarise(stats: Stats, filters: StatsFilters): string {
  if (stats.total === 0) return `No visits in these ${filters.days} days yet${filters.bots ? '' : ' (bots left out)'}.`;
  const s = stats.daily.reduce((sum, d) => sum + d.s, 0);
  const q = stats.daily.reduce((sum, d) => sum + d.q, 0);
  let where: string;
  if (filters.source === 'q') where = `${formatNumber(stats.total)} visits through the QR code`;
  else if (filters.source === 's') where = `${formatNumber(stats.total)} visits through the short link`;
  else if (q > s) where = `Most visits came through the QR code (${share(q, s + q)})`;
  else if (s > q) where = `Most visits came through the short link (${share(s, s + q)})`;
  else where = 'As many visits came through the QR code as through the short link';
  const time = busiestTime(stats);
  const when = !time ? '' : time.part === PARTS[0] ? `, most often in the early hours of ${time.day}` : `, most often on ${time.day} ${time.part}`;
  const devices = stats.devices.flatMap((d) => ('device' in d && d.count > 0 ? [d] : []));
  const top = devices[0];
  const from = top ? `, ${top.count === stats.total ? '' : 'mostly '}from ${DEVICE_WORDS[top.device] ?? top.device}` : '';
  return `${where}${when}${from}.`;
}
