import type { Static } from '@sinclair/typebox';
import type { LinkService } from '../links/link-service.js';
import { requireAccount, type Principal } from '../platform/auth/principal.js';
import { AppError } from '../platform/errors.js';
import { API_LIMITS } from '../platform/api-limits.js';
import type { Clock } from '../platform/time.js';
import { compare } from './counts.js';
import { toCsv, type CsvRow } from './csv.js';
import type { CountRow, Gap, StatsStore, VisitorSketch } from './ports.js';
import type { Stats, TagStats } from './stats-schemas.js';
import { StatsWindow, type Day, type StatsRequest } from './stats-window.js';
import { decode, estimate, mergeStored, type Sketch } from './visitors.js';
import { isZone } from './zones.js';

export type StatsResult = Static<typeof Stats>;
type TagStatsResult = Static<typeof TagStats>;

const TOP_REFERRERS = API_LIMITS.stats.topReferrers;

type Totals = Map<string, Map<string, number>>;
/** Values by count (descending), then by value so equal counts come out in a stable order. */
const sorted = (counts: Map<string, number> | undefined) => [...(counts ?? [])].filter(([, n]) => n > 0).sort(([a, m], [b, n]) => n - m || compare(a, b));

export class StatsService {
  constructor(private readonly deps: { links: LinkService; store: StatsStore; now: Clock }) {}

  async json(principal: Principal, linkId: string, request: StatsRequest): Promise<StatsResult> {
    const w = this.window(request);
    const [link, refreshedAt] = await Promise.all([this.deps.links.access(principal, linkId, 'analytics:read'), this.deps.store.refreshedAt()]);
    const [rows, visitors, gaps] = await Promise.all([
      this.deps.store.counts(link.id, w.fromDay, w.toDay, { quarters: w.quarters, perDay: false }),
      this.visitors(link.id, w),
      this.gaps(link.id, link.createdAt, w),
    ]);
    const daily = w.daily(rows).map((day) => ({ ...day, visitors: visitors.get(day.date) ?? 0 }));
    const totals = breakdowns(rows, w);
    const devices = [
      ...sorted(totals.get('device')).map(([device, count]) => ({ device: device as 'mobile', count })),
      ...sorted(totals.get('browser')).map(([browser, count]) => ({ browser, count })),
      ...sorted(totals.get('os')).map(([os, count]) => ({ os, count })),
    ];
    const referrers = sorted(totals.get('referrer'));
    const rest = referrers.slice(TOP_REFERRERS).reduce((n, [, count]) => n + count, 0);
    return {
      from: w.from,
      to: w.to,
      // Another instance's clock may run ahead of this one's: never later than the answer's own time.
      refreshedAt: Math.min(refreshedAt ?? w.to, w.to),
      total: daily.reduce((n, d) => n + d.total, 0),
      daily,
      countries: sorted(totals.get('country')).map(([country, count]) => ({ country, count })),
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
    const [rows, visitors, gaps] = await Promise.all([
      this.deps.store.counts(link.id, w.fromDay, w.toDay, { quarters: w.quarters, perDay: true }),
      this.visitors(link.id, w),
      this.gaps(link.id, link.createdAt, w),
    ]);
    const lines: CsvRow[] = w.daily(rows).flatMap((day) => dayRows({ ...day, visitors: visitors.get(day.date) ?? 0 }));
    for (const row of rows) {
      const count = w.sum(row);
      if (row.dimension !== 'time' && count > 0) lines.push({ day: row.day, dimension: row.dimension, value: row.value, count });
    }
    lines.sort((a, b) => compare(a.day, b.day) || compare(a.dimension, b.dimension) || compare(a.value, b.value));
    return { filename: `stats-${link.slug}-${w.dates[0]}-${w.dates.at(-1)}.csv`, body: toCsv(lines, gaps) };
  }

  /** Per link of the caller's account with the tag: totals, by source, per day and unique visitors; the campaign's own and its gaps. */
  async tag(principal: Principal, tag: string, request: StatsRequest): Promise<TagStatsResult> {
    const w = this.window(request);
    const { accountId } = requireAccount(principal, 'analytics:read');
    const refreshedAt = await this.deps.store.refreshedAt();
    const { links, rows, visitors, gaps } = await this.deps.store.tagCounts(accountId, tag, w);
    const [rowsOf, sketchesOf] = [byLink(rows), byLink(visitors)];
    // A day's sketches of all the links merge: one person through two of them that day counts once.
    const campaign = new Map<string, Sketch>();
    const listed = links.map((link) => {
      const days = w.daily(rowsOf.get(link.id) ?? []);
      const s = days.reduce((n, d) => n + d.s, 0);
      const q = days.reduce((n, d) => n + d.q, 0);
      const sketches = daySketches(sketchesOf.get(link.id) ?? [], w);
      for (const [day, sketch] of sketches) mergeInto(campaign, day, sketch);
      const daily = days.map((d) => ({ date: d.date, s: d.s, q: d.q }));
      return { id: link.id, slug: link.slug, title: link.title, total: s + q, s, q, visitors: windowVisitors(sketches, w), daily };
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
      visitors: windowVisitors(campaign, w),
      links: listed,
      gaps: gaps.filter(shownWith(w)),
    };
  }

  /** A link's daily totals (UTC, bots included) of its last `days` days, for the operator console: no principal. */
  async recentDays(linkId: string, days: number): Promise<Array<{ day: string; visits: number }>> {
    const w = this.window({ days, bots: 'include' });
    const rows = await this.deps.store.counts(linkId, w.fromDay, w.toDay, { quarters: w.quarters, perDay: false });
    return w.daily(rows).map((day) => ({ day: day.date, visits: day.total }));
  }

  private window(request: StatsRequest): StatsWindow {
    if (request.tz !== undefined && !isZone(request.tz)) throw new AppError('invalid_request');
    return new StatsWindow(request, this.deps.now());
  }

  /** Gaps of the window; gaps of bot visits only when bots are counted. */
  private async gaps(linkId: string, createdAt: number, w: StatsWindow) {
    return (await this.deps.store.gaps(linkId, w.from, w.to, createdAt)).filter(shownWith(w));
  }

  /** Unique visitors per UTC day of the link (see daySketches). */
  private async visitors(linkId: string, w: StatsWindow): Promise<Map<string, number>> {
    const sketches = daySketches(await this.deps.store.visitors(linkId, w.fromDay, w.toDay), w);
    return new Map([...sketches].map(([day, sketch]) => [day, estimate(sketch)]));
  }
}

function byLink<T extends { linkId: string }>(rows: T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) {
    const group = grouped.get(row.linkId);
    if (group === undefined) grouped.set(row.linkId, [row]);
    else group.push(row);
  }
  return grouped;
}

/** Whether the request shows a gap: those of bot visits only when bots are counted. */
const shownWith = (w: StatsWindow) => (gap: Gap) => w.request.bots === 'include' || gap.reason !== 'bot_ceiling_reached';

/**
 * The sketches of the sources and classes the request takes, merged per UTC day: the salt changes at
 * midnight UTC, so each UTC day has its sketch, shown on the date of the same name.
 */
function daySketches(rows: VisitorSketch[], w: StatsWindow): Map<string, Sketch> {
  const sketches = new Map<string, Sketch>();
  for (const row of rows) if (w.columns.includes((row.source === 'q' ? 1 : 0) + (row.bot ? 2 : 0))) mergeInto(sketches, row.day, row.sketch);
  return sketches;
}

/** Merges a day's sketch, stored (visitors.ts) or not, into the map's sketch of that day (decoded anew when it is the first). */
function mergeInto(sketches: Map<string, Sketch>, day: string, sketch: Uint8Array): void {
  const into = sketches.get(day);
  if (into === undefined) sketches.set(day, decode(sketch));
  else mergeStored(into, sketch);
}

/** Unique visitors of the window as a link's page sums them: the estimates of the window's dates. */
const windowVisitors = (sketches: Map<string, Sketch>, w: StatsWindow) =>
  w.dates.reduce((n, date) => n + (sketches.has(date) ? estimate(sketches.get(date)!) : 0), 0);

/** The window's totals per breakdown and value. */
function breakdowns(rows: CountRow[], w: StatsWindow): Totals {
  const totals: Totals = new Map();
  for (const row of rows) {
    if (row.dimension === 'time') continue;
    const values = totals.get(row.dimension) ?? totals.set(row.dimension, new Map()).get(row.dimension)!;
    values.set(row.value, (values.get(row.value) ?? 0) + w.sum(row));
  }
  return totals;
}

/** A day's CSV rows of its own: sources, bots, hours and unique visitors. */
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
