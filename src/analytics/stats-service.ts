import { LRUCache } from 'lru-cache';
import type { LinkService } from '../links/link-service.js';
import type { Principal } from '../platform/auth/principal.js';
import { DAY_MS, utcDay, type Clock } from '../platform/time.js';
import { toCsv } from './csv.js';
import { API_LIMITS } from '../platform/api-limits.js';
import type { DeviceClass, Gap, RollupRow, StatsStore } from './ports.js';

/** Referrers listed by name; the rest are summed into one "other" entry. */
export const TOP_REFERRERS = API_LIMITS.stats.topReferrers;

export interface DailyStats {
  date: string;
  total: number;
  s: number;
  q: number;
}

export interface StatsResult {
  from: number;
  to: number;
  refreshedAt: number;
  total: number;
  daily: DailyStats[];
  countries: { country: string; count: number }[];
  devices: { device: DeviceClass; count: number }[];
  referrers: { referrer: string; count: number }[];
  gaps: Gap[];
}

/** The window of a stats request: the last `days` UTC days, today included, up to now. */
function windowOf(now: number, days: number) {
  const from = Math.floor(now / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  return { from, to: now, fromDay: utcDay(from), toDay: utcDay(now) };
}

/** Sorted by count (descending), then by value so equal counts come out in a stable order. */
const byCount = (a: RollupRow, b: RollupRow) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

type Counts = Pick<StatsResult, 'total' | 'daily' | 'countries' | 'devices' | 'referrers'>;

export class StatsService {
  /**
   * Counts change only when a roll-up runs (every ANALYTICS_ROLLUP_INTERVAL_MS, on any instance), so
   * computed counts are reused until the roll-up generation moves: a dashboard polling a popular link
   * costs two small queries, not a sum over ninety days of rollups.
   */
  private readonly computed = new LRUCache<string, { generation: number; counts: Counts }>({ max: 500 });

  constructor(private readonly deps: { links: LinkService; store: StatsStore; now: Clock }) {}

  async json(principal: Principal, linkId: string, days: number): Promise<StatsResult> {
    const w = windowOf(this.deps.now(), days);
    // Freshness is the same for every link: read while access is checked, it saves a round trip.
    const [link, fresh] = await Promise.all([this.deps.links.access(principal, linkId, 'analytics:read'), this.deps.store.freshness()]);
    const key = `${link.id}|${w.fromDay}|${w.toDay}`;
    const known = this.computed.get(key);
    const current = known?.generation === fresh.generation;
    const [gaps, counts] = await Promise.all([
      this.deps.store.gaps(link.id, w.from, w.to, link.createdAt),
      current ? known.counts : this.counts(link.id, w.from, days),
    ]);
    if (!current) this.computed.set(key, { generation: fresh.generation, counts });
    // Before the first roll-up nothing has been folded: the counts are as of the link's creation.
    return { from: w.from, to: w.to, refreshedAt: fresh.refreshedAt ?? link.createdAt, ...counts, gaps };
  }

  private async counts(linkId: string, from: number, days: number): Promise<Counts> {
    const fromDay = utcDay(from);
    const toDay = utcDay(from + (days - 1) * DAY_MS);
    const { daily: sources, totals } = await this.deps.store.window(linkId, ['country', 'device', 'referrer'], fromDay, toDay);
    const daily = dailySeries(from, days, sources);
    const of = (dimension: string) => totals.filter((r) => r.dimension === dimension).sort(byCount);
    return {
      total: daily.reduce((n, d) => n + d.total, 0),
      daily,
      countries: of('country').map((r) => ({ country: r.value, count: r.count })),
      devices: of('device').map((r) => ({ device: r.value as DeviceClass, count: r.count })),
      referrers: topReferrers(of('referrer')),
    };
  }

  async csv(principal: Principal, linkId: string, days: number): Promise<{ filename: string; body: string }> {
    const link = await this.deps.links.access(principal, linkId, 'analytics:read');
    const w = windowOf(this.deps.now(), days);
    const [rows, gaps] = await Promise.all([
      this.deps.store.rows(link.id, w.fromDay, w.toDay),
      this.deps.store.gaps(link.id, w.from, w.to, link.createdAt),
    ]);
    return { filename: `stats-${link.slug}-${w.fromDay}-${w.toDay}.csv`, body: toCsv(rows, gaps) };
  }
}

/** Every UTC day of the window, zeros included, with the /s/ and /q/ split. */
function dailySeries(from: number, days: number, sources: RollupRow[]): DailyStats[] {
  const byDay = new Map<string, DailyStats>();
  const series: DailyStats[] = [];
  for (let i = 0; i < days; i++) {
    const entry = { date: utcDay(from + i * DAY_MS), total: 0, s: 0, q: 0 };
    byDay.set(entry.date, entry);
    series.push(entry);
  }
  for (const row of sources) {
    const entry = byDay.get(row.day);
    if (!entry || (row.value !== 's' && row.value !== 'q')) continue;
    entry[row.value] += row.count;
    entry.total += row.count;
  }
  return series;
}

function topReferrers(sorted: RollupRow[]): { referrer: string; count: number }[] {
  const top = sorted.slice(0, TOP_REFERRERS).map((r) => ({ referrer: r.value, count: r.count }));
  const rest = sorted.slice(TOP_REFERRERS).reduce((n, r) => n + r.count, 0);
  return rest > 0 ? [...top, { referrer: 'other', count: rest }] : top;
}
