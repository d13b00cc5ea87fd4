import type { Static } from '@sinclair/typebox';
import { useMemo } from 'preact/hooks';
import type { TagStats as TagStatsSchema } from '../../../../src/analytics/stats-schemas.js';
import { LINE_DASHES } from '../../components/charts/line-styles.js';
import type { LinesSpec } from '../../components/charts/uplot-visits.js';
import { dayStart } from '../../components/charts/utc-days.js';
import { VisitsChart } from '../../components/charts/visits-chart.js';
import { wallSeconds } from '../../components/charts/wall-clock.js';
import { formatNumber } from '../../ui/format.js';
import { gapWords } from '../link/analytics-parts.js';

export type TagStats = Static<typeof TagStatsSchema>;
type TagLink = TagStats['links'][number];

/** The lines of the chart: each link's, or (when there are more links than line styles) the busiest ones' and one of the rest. */
export interface CampaignLine {
  label: string;
  daily: number[];
}

/** A link's name on the page: its title, or its slug; with its slug too when another link has the same title. */
export function linkNames(links: TagLink[]): Map<string, string> {
  const title = (link: TagLink) => link.title || link.slug;
  const taken = new Map<string, number>();
  for (const link of links) taken.set(title(link), (taken.get(title(link)) ?? 0) + 1);
  return new Map(links.map((link) => [link.id, taken.get(title(link))! > 1 && link.title ? `${link.title} (/${link.slug})` : title(link)]));
}

export function campaignLines(stats: TagStats): CampaignLine[] {
  const names = linkNames(stats.links);
  const perDay = (link: TagLink) => link.daily.map((d) => d.s + d.q);
  const own = stats.links.length <= LINE_DASHES.length ? stats.links : stats.links.slice(0, LINE_DASHES.length - 1);
  const lines = own.map((link) => ({ label: names.get(link.id)!, daily: perDay(link) }));
  const rest = stats.links.slice(own.length);
  if (rest.length > 0)
    lines.push({ label: `The other ${rest.length} links`, daily: perDay(rest[0]!).map((_, day) => rest.reduce((n, link) => n + perDay(link)[day]!, 0)) });
  return lines;
}

/** The links' visits per day (bots left out, days in `tz`): a line each, with its table twin. */
export function CampaignChart({ stats, tz }: { stats: TagStats; tz: string }) {
  const lines = useMemo(() => campaignLines(stats), [stats]);
  const dates = stats.links[0]?.daily.map((d) => d.date) ?? [];
  const spec: LinesSpec = useMemo(
    () => ({
      starts: dates.map(dayStart),
      span: 86_400,
      lines: lines.map((line) => ({ label: line.label, values: line.daily })),
      gaps: stats.gaps.map((gap) => ({ from: wallSeconds(gap.from, tz), to: wallSeconds(gap.to, tz) })),
    }),
    [stats, tz],
  );
  if (stats.links.length === 0) return null;
  return (
    <div class="analytics-daily campaign-daily">
      <VisitsChart spec={spec} caption={`Visits per day and link (${tz})`} tableId="campaign-days" />
      <div class="daily-table" tabindex={0} role="region" aria-labelledby="campaign-days-caption">
        <table id="campaign-days">
          <caption id="campaign-days-caption">Daily visits per link ({tz})</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              {lines.map((line, i) => (
                <th scope="col" class="number" key={i}>
                  {line.label}
                </th>
              ))}
              <th scope="col">Not recorded</th>
            </tr>
          </thead>
          <tbody>
            {dates
              .map((date, day) => (
                <tr key={date}>
                  <th scope="row" class="nowrap">
                    {date}
                  </th>
                  {lines.map((line, i) => (
                    <td class="number" key={i}>
                      {formatNumber(line.daily[day]!)}
                    </td>
                  ))}
                  <td>{gapWords(stats.gaps, tz, dayStart(date), dayStart(date) + 86_400)}</td>
                </tr>
              ))
              .reverse()}
          </tbody>
        </table>
      </div>
    </div>
  );
}
