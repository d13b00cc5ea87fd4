import type { Static } from '@sinclair/typebox';
import { LRUCache } from 'lru-cache';
import type { LinkService } from '../links/link-service.js';
import type { Principal } from '../platform/auth/principal.js';
import { DAY_MS, utcDay, type Clock } from '../platform/time.js';
import { toCsv } from './csv.js';
import { API_LIMITS } from '../platform/api-limits.js';
import type { Counts, DayCounts, DeviceClass, Dimension, RollupRow, StatsStore } from './ports.js';
import { addCounts, countRows } from './store/rollups.js';
import type { Stats } from './stats-schemas.js';

/** Referrers listed by name; the rest are summed into one "other" entry. */
export const TOP_REFERRERS = API_LIMITS.stats.topReferrers;

/** The dimensions stats JSON totals over the window. */
const TOTALS: Dimension[] = ['country', 'device', 'referrer'];

export type StatsResult = Static<typeof Stats>;
type DailyStats = StatsResult['daily'][number];

/** The window of a stats request: the last `days` UTC days, today included, up to now. */
function windowOf(now: number, days: number) {
  const from = Math.floor(now / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  return { from, to: now, fromDay: utcDay(from), toDay: utcDay(now) };
}

/** The window's days before yesterday: their daily series and totals. */
interface Settled {
  days: DayCounts[];
  totals: Counts;
}

export class StatsService {
  /**
   * Flushes add to today's rollups every second or so, but to earlier days only around midnight or
   * after an outage (the store's pastVersion moves then). So a read sums the days before yesterday
   * once and keeps that sum, and reads yesterday and today anew: a dashboard polling a busy link reads
   * two rows, not ninety.
   */
  private readonly settled = new LRUCache<string, Settled>({ max: 500 });

  constructor(private readonly deps: { links: LinkService; store: StatsStore; now: Clock }) {}

  async json(principal: Principal, linkId: string, days: number): Promise<StatsResult> {
    const w = windowOf(this.deps.now(), days);
    // Freshness is the same for every link: read while access is checked, it saves a round trip.
    const [link, fresh] = await Promise.all([this.deps.links.access(principal, linkId, 'analytics:read'), this.deps.store.freshness()]);
    const recentFrom = Math.max(w.from, w.to - (w.to % DAY_MS) - DAY_MS);
    const [gaps, settled, recent] = await Promise.all([
      this.deps.store.gaps(link.id, w.from, w.to, link.createdAt),
      this.settledDays(link.id, w.from, recentFrom, fresh.pastVersion),
      this.deps.store.days(link.id, utcDay(recentFrom), w.toDay, true),
    ]);
    const totals: Counts = {};
    for (const dimension of TOTALS) totals[dimension] = new Map(settled.totals[dimension]);
    for (const day of recent) addCounts(totals, day.counts, TOTALS);
    const daily = dailySeries(w.from, days, [...settled.days, ...recent]);
    // Another instance's clock may run ahead of this one's: never later than the answer's own time.
    const refreshedAt = Math.min(fresh.refreshedAt ?? w.to, w.to);
    const of = (dimension: Dimension) => countRows('', { [dimension]: totals[dimension] }).sort(byCount);
    return {
      from: w.from,
      to: w.to,
      refreshedAt,
      total: daily.reduce((n, d) => n + d.total, 0),
      daily,
      countries: of('country').map((r) => ({ country: r.value, count: r.count })),
      devices: of('device').map((r) => ({ device: r.value as DeviceClass, count: r.count })),
      referrers: topReferrers(of('referrer')),
      gaps,
    };
  }

  /** The days of [from, until) and their totals, from the cache while no flush added to them. */
  private async settledDays(linkId: string, from: number, until: number, pastVersion: number): Promise<Settled> {
    if (until <= from) return { days: [], totals: {} };
    const key = `${linkId}|${from}|${until}|${pastVersion}`;
    const known = this.settled.get(key);
    if (known !== undefined) return known;
    const days = await this.deps.store.days(linkId, utcDay(from), utcDay(until - DAY_MS), true);
    const totals: Counts = {};
    for (const day of days) addCounts(totals, day.counts, TOTALS);
    const settled = { days: days.map((d) => ({ ...d, counts: [] })), totals };
    this.settled.set(key, settled);
    return settled;
  }

  async csv(principal: Principal, linkId: string, days: number): Promise<{ filename: string; body: string }> {
    const link = await this.deps.links.access(principal, linkId, 'analytics:read');
    const w = windowOf(this.deps.now(), days);
    const [rows, gaps] = await Promise.all([
      this.deps.store.days(link.id, w.fromDay, w.toDay, true),
      this.deps.store.gaps(link.id, w.from, w.to, link.createdAt),
    ]);
    const values = rows.flatMap((d) => countRows(d.day, addCounts({}, d.counts)).sort(byDimensionAndValue));
    return { filename: `stats-${link.slug}-${w.fromDay}-${w.toDay}.csv`, body: toCsv(values, gaps) };
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Sorted by count (descending), then by value so equal counts come out in a stable order. */
const byCount = (a: RollupRow, b: RollupRow) => b.count - a.count || compare(a.value, b.value);
const byDimensionAndValue = (a: RollupRow, b: RollupRow) => compare(a.dimension, b.dimension) || compare(a.value, b.value);

/** Every UTC day of the window, zeros included, with the /s/ and /q/ split (`rows` has one entry per day). */
function dailySeries(from: number, days: number, rows: DayCounts[]): DailyStats[] {
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return Array.from({ length: days }, (_, i) => {
    const date = utcDay(from + i * DAY_MS);
    const { s, q } = byDay.get(date) ?? { s: 0, q: 0 };
    return { date, total: s + q, s, q };
  });
}

function topReferrers(sorted: RollupRow[]): { referrer: string; count: number }[] {
  const top = sorted.slice(0, TOP_REFERRERS).map((r) => ({ referrer: r.value, count: r.count }));
  const rest = sorted.slice(TOP_REFERRERS).reduce((n, r) => n + r.count, 0);
  return rest > 0 ? [...top, { referrer: 'other', count: rest }] : top;
}
