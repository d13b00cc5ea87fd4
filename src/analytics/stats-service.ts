import type { Static } from '@sinclair/typebox';
import { LRUCache } from 'lru-cache';
import type { LinkService } from '../links/link-service.js';
import { requireAccount, type Principal } from '../platform/auth/principal.js';
import { AppError } from '../platform/errors.js';
import { API_LIMITS } from '../platform/api-limits.js';
import type { Clock } from '../platform/time.js';
import { compare, DIMENSIONS } from './counts.js';
import { toCsv, type CsvRow } from './csv.js';
import type { Gap, LinkDay, LinkWindow, StatsStore } from './ports.js';
import type { Stats, TagStats } from './stats-schemas.js';
import { StatsWindow, type Day, type StatsRequest } from './stats-window.js';
import { emptySketch, estimate, type Sketch } from './visitors.js';
import { isZone } from './zones.js';

export type StatsResult = Static<typeof Stats>;
type TagStatsResult = Static<typeof TagStats>;

const TOP_REFERRERS = API_LIMITS.stats.topReferrers;

const [TIME, COUNTRY, DEVICE, BROWSER, OS, REFERRER] = DIMENSIONS.map((_, d) => d) as [number, number, number, number, number, number];
/** Values by count (descending), then by value so equal counts come out in a stable order. */
const sorted = (counts: Map<string, number> | undefined) => [...(counts ?? [])].filter(([, n]) => n > 0).sort(([a, m], [b, n]) => n - m || compare(a, b));

export class StatsService {
  /** Per link and window shape, the sums of the days before the last (see sums). */
  private readonly before = new LRUCache<string, { stamps: string[]; daily: Day[]; totals: Map<string, number>[] }>({ max: 500 });

  constructor(private readonly deps: { links: LinkService; store: StatsStore; now: Clock }) {}

  async json(principal: Principal, linkId: string, request: StatsRequest): Promise<StatsResult> {
    const w = this.window(request);
    const [link, refreshedAt] = await Promise.all([this.deps.links.access(principal, linkId, 'analytics:read'), this.deps.store.refreshedAt()]);
    const [window, gaps] = await Promise.all([this.deps.store.linkWindow(link.id, w.fromDay, w.toDay), this.gaps(link.id, link.createdAt, w)]);
    const { daily, totals } = this.sums(link.id, window, w);
    const devices = [
      ...sorted(totals[DEVICE]).map(([device, count]) => ({ device: device as 'mobile', count })),
      ...sorted(totals[BROWSER]).map(([browser, count]) => ({ browser, count })),
      ...sorted(totals[OS]).map(([os, count]) => ({ os, count })),
    ];
    const referrers = sorted(totals[REFERRER]);
    const rest = referrers.slice(TOP_REFERRERS).reduce((n, [, count]) => n + count, 0);
    return {
      from: w.from,
      to: w.to,
      // Another instance's clock may run ahead of this one's: never later than the answer's own time.
      refreshedAt: Math.min(refreshedAt ?? w.to, w.to),
      total: daily.reduce((n, d) => n + d.total, 0),
      daily,
      countries: sorted(totals[COUNTRY]).map(([country, count]) => ({ country, count })),
      devices,
      referrers: [
        ...referrers.slice(0, TOP_REFERRERS).map(([referrer, count]) => ({ referrer, count })),
        ...(rest > 0 ? [{ referrer: 'other', count: rest }] : []),
      ],
      gaps,
    };
  }

  async csv(principal: Principal, linkId: string, request: StatsRequest): Promise<{ filename: string; body: string }> {
    const w = this.window(request);
    const link = await this.deps.links.access(principal, linkId, 'analytics:read');
    // Per day, without blocks: a closed day's unique visitors come from its summary, so no sketch is read.
    const [{ days }, gaps] = await Promise.all([this.deps.store.linkWindow(link.id, w.fromDay, w.toDay, true), this.gaps(link.id, link.createdAt, w)]);
    const lines: CsvRow[] = w.daily(days).flatMap(dayRows);
    for (const day of days) {
      DIMENSIONS.forEach((dimension, d) => {
        if (d === TIME) return;
        const list = day.counts[d]!;
        for (let i = 0; i < list.length; i += 5) {
          const count = w.sum(list, i + 1);
          if (count > 0) lines.push({ day: day.day, dimension, value: list[i] as string, count });
        }
      });
    }
    lines.sort((a, b) => compare(a.day, b.day) || compare(a.dimension, b.dimension) || compare(a.value, b.value));
    return { filename: `stats-${link.slug}-${w.dates[0]}-${w.dates.at(-1)}.csv`, body: toCsv(lines, gaps) };
  }

  /** A campaign's stats (ADR 0067). */
  async tag(principal: Principal, tag: string, request: StatsRequest): Promise<TagStatsResult> {
    const w = this.window(request);
    const { accountId } = requireAccount(principal, 'analytics:read');
    const refreshedAt = await this.deps.store.refreshedAt();
    const links = await this.deps.store.taggedLinks(accountId, tag);
    const ids = links.map((l) => l.id);
    const [days, gaps] = await Promise.all([
      this.deps.store.linkDays(ids, w.fromDay, w.toDay),
      this.deps.store.gaps(ids, w.from, w.to, Math.min(...links.map((l) => l.createdAt))),
    ]);
    // A day's sketches of all the links merge: one person through two of them that day counts once.
    const campaign = new Map<string, { sketch: Sketch; quarters: Float64Array[] }>();
    const listed = links.map((link) => {
      const linkDays = days.get(link.id)!;
      const daily = w.daily(linkDays);
      const s = daily.reduce((n, d) => n + d.s, 0);
      const q = daily.reduce((n, d) => n + d.q, 0);
      for (const day of linkDays) {
        const merged = campaign.get(day.day) ?? campaign.set(day.day, { sketch: emptySketch(), quarters: [] }).get(day.day)!;
        day.mergeVisitors(merged.sketch, w.mask);
        merged.quarters.push(day.quarters);
      }
      const visitors = daily.reduce((n, d) => n + d.visitors, 0);
      return { id: link.id, slug: link.slug, title: link.title, total: s + q, s, q, visitors, daily: daily.map((d) => ({ date: d.date, s: d.s, q: d.q })) };
    });
    listed.sort((a, b) => b.total - a.total || compare(a.slug, b.slug));
    const s = listed.reduce((n, l) => n + l.s, 0);
    const q = listed.reduce((n, l) => n + l.q, 0);
    return {
      tag,
      from: w.from,
      to: w.to,
      refreshedAt: Math.min(refreshedAt ?? w.to, w.to),
      total: s + q,
      s,
      q,
      // Each UTC day's merged estimate, shared by all the links' visits as a link's page shares it.
      visitors: [...campaign].reduce((n, [day, { sketch, quarters }]) => n + w.visitorsInWindow(day, quarters, estimate(sketch)), 0),
      links: listed,
      gaps: gaps.filter(shownWith(w)),
    };
  }

  /** For the operator console: no principal, so no access check; UTC days, bots included. */
  async recentDays(linkId: string, days: number): Promise<Array<{ day: string; visits: number }>> {
    const w = this.window({ days, bots: 'include' });
    return w.daily((await this.deps.store.linkWindow(linkId, w.fromDay, w.toDay)).days).map((day) => ({ day: day.date, visits: day.total }));
  }

  private window(request: StatsRequest): StatsWindow {
    if (request.tz !== undefined && !isZone(request.tz)) throw new AppError('invalid_request');
    return new StatsWindow(request, this.deps.now());
  }

  /** All but the window's last UTC day, which changes as visits come, are added up once and kept while their stamps hold. */
  private sums(linkId: string, { days, blocks }: LinkWindow, w: StatsWindow): { daily: Day[]; totals: Map<string, number>[] } {
    const last = days.at(-1)?.day === w.toDay ? days.length - 1 : days.length;
    const before = days.slice(0, last);
    const stamps = [...before, ...blocks].map((part) => part.stamp);
    const key = `${linkId}\t${w.shape}`;
    let kept = this.before.get(key);
    if (kept === undefined || kept.stamps.length !== stamps.length || kept.stamps.some((stamp, i) => stamp !== stamps[i])) {
      const daily = w.emptyDays();
      w.addDays(daily, before);
      kept = {
        stamps,
        daily,
        totals: addBreakdowns(
          DIMENSIONS.map(() => new Map<string, number>()),
          [...before, ...blocks],
          w,
        ),
      };
      this.before.set(key, kept);
    }
    const lastDay = days.slice(last);
    const daily = kept.daily.map((day) => ({ ...day, hours: [...day.hours] }));
    w.addDays(daily, lastDay);
    return {
      daily,
      totals: addBreakdowns(
        kept.totals.map((values) => new Map(values)),
        lastDay,
        w,
      ),
    };
  }

  private async gaps(linkId: string, createdAt: number, w: StatsWindow) {
    return (await this.deps.store.gaps([linkId], w.from, w.to, createdAt)).filter(shownWith(w)).map(({ linkId: _, ...gap }) => gap);
  }
}

/** Whether the request shows a gap: those of bot visits only when bots are counted. */
const shownWith = (w: StatsWindow) => (gap: Gap) => w.request.bots === 'include' || gap.reason !== 'bot_ceiling_reached';

/** Totals are indexed as DIMENSIONS, `time` left empty. */
function addBreakdowns(totals: Map<string, number>[], days: readonly Pick<LinkDay, 'counts'>[], w: StatsWindow): Map<string, number>[] {
  for (const day of days) {
    for (let d = TIME + 1; d < DIMENSIONS.length; d++) {
      const values = totals[d]!;
      const list = day.counts[d]!;
      for (let i = 0; i < list.length; i += 5) values.set(list[i] as string, (values.get(list[i] as string) ?? 0) + w.sum(list, i + 1));
    }
  }
  return totals;
}

/** A local day's own CSV rows (source, bot, hour, visitors); the breakdowns' rows are per UTC day (ADR 0055). */
function dayRows(day: Day): CsvRow[] {
  const rows: CsvRow[] = [
    { day: day.date, dimension: 'source', value: 's', count: day.s },
    { day: day.date, dimension: 'source', value: 'q', count: day.q },
    { day: day.date, dimension: 'bot', value: 'yes', count: day.bots },
    { day: day.date, dimension: 'bot', value: 'no', count: day.total - day.bots },
    { day: day.date, dimension: 'visitors', value: 'unique', count: day.visitors },
    ...day.hours.map((count, hour) => ({ day: day.date, dimension: 'hour', value: String(hour).padStart(2, '0'), count })),
  ];
  return rows.filter((r) => r.count > 0);
}
