import type { LinkService } from '../link-service.js';
import type { Principal } from '../principal.js';
import { utcDay, type Clock } from '../time.js';
import { toCsv } from './csv.js';
import type { DeviceClass, Gap, RollupRow, StatsStore } from './ports.js';

const DAY_MS = 86_400_000;
/** Referrers listed by name; the rest are summed into one "other" entry. */
export const TOP_REFERRERS = 50;

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

export class StatsService {
  constructor(private readonly deps: { links: LinkService; store: StatsStore; now: Clock }) {}

  async json(principal: Principal, linkId: string, days: number): Promise<StatsResult> {
    const link = await this.deps.links.access(principal, linkId, 'analytics:read');
    const w = windowOf(this.deps.now(), days);
    const { store } = this.deps;
    const [sources, totals, gaps, refreshedAt] = await Promise.all([
      store.daily(link.id, 'source', w.fromDay, w.toDay),
      store.totals(link.id, ['country', 'device', 'referrer'], w.fromDay, w.toDay),
      store.gaps(link.id, w.from, w.to, link.createdAt),
      store.refreshedAt(),
    ]);
    const daily = dailySeries(w.from, days, sources);
    const of = (dimension: string) => totals.filter((r) => r.dimension === dimension).sort(byCount);
    return {
      from: w.from,
      to: w.to,
      refreshedAt: refreshedAt ?? w.to,
      total: daily.reduce((n, d) => n + d.total, 0),
      daily,
      countries: of('country').map((r) => ({ country: r.value, count: r.count })),
      devices: of('device').map((r) => ({ device: r.value as DeviceClass, count: r.count })),
      referrers: topReferrers(of('referrer')),
      gaps,
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
