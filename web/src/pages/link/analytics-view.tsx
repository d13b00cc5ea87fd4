import { useMemo } from 'preact/hooks';
import { BarTable, type BarRow } from '../../components/charts/bar-table.js';
import type { ChartSpec } from '../../components/charts/uplot-visits.js';
import { dayStart } from '../../components/charts/utc-days.js';
import { VisitsChart } from '../../components/charts/visits-chart.js';
import { wallSeconds } from '../../components/charts/wall-clock.js';
import { WorldMap } from '../../components/charts/world-map.js';
import { plural } from '../../ui/format.js';
import { GapList, Headline, TimeTable } from './analytics-parts.js';
import { summarise } from './analytics-summary.js';
import { useSecondsSince, type Stats, type StatsFilters } from './use-stats.js';

/** Windows up to this many days are drawn by the hour ("when did people scan the poster?"), longer ones by the day. */
export const HOURLY_UP_TO_DAYS = 7;

const regions = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'region' }) : undefined;
const countryName = (code: string) => (code === 'unknown' ? 'Unknown' : (regions?.of(code) ?? code));
const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
const referrerName = (value: string) => ({ direct: 'Direct (no referrer)', unknown: 'Unknown', other: 'Others' })[value] ?? value;
const OTHER: Record<string, string> = { other: 'Other' };

/** The chart's bars: one per hour of each day, or one per day, on the zone's clock. */
export function chartSpec(stats: Stats, filters: StatsFilters, hourly: boolean): ChartSpec {
  const buckets = hourly
    ? stats.daily.flatMap((day) =>
        day.hours.map((count, hour) => ({
          at: dayStart(day.date) + hour * 3600,
          s: filters.source === 'q' ? 0 : count,
          q: filters.source === 'q' ? count : 0,
        })),
      )
    : stats.daily.map((day) => ({ at: dayStart(day.date), s: day.s, q: day.q }));
  const gaps = stats.gaps.map((gap) => ({ from: wallSeconds(gap.from, filters.tz), to: wallSeconds(gap.to, filters.tz) }));
  // Hours carry no split by source: with both, the bars are all visits, labelled so.
  const show = hourly ? (filters.source === 'both' ? 'all' : filters.source) : filters.source;
  return { buckets, span: hourly ? 3600 : 86_400, show, gaps };
}

/** Everything the section shows for one answer of the API. */
export function StatsView({ stats, filters }: { stats: Stats; filters: StatsFilters }) {
  const seconds = useSecondsSince(stats.refreshedAt);
  const hourly = filters.days <= HOURLY_UP_TO_DAYS;
  const spec = useMemo(() => chartSpec(stats, filters, hourly), [stats, filters.tz, filters.source, hourly]);
  const rows = useMemo(() => rankings(stats), [stats]);
  const countries = useMemo(() => new Map(stats.countries.map((c) => [c.country, c.count])), [stats]);
  const gapNote = stats.gaps.length > 0 ? `Visits were not recorded for ${plural(stats.gaps.length, 'period', 'periods')}.` : undefined;
  return (
    <>
      <p class="hint">
        {stats.daily[0]?.date} to {stats.daily.at(-1)?.date}, times in {filters.tz}. Updated{' '}
        {seconds === undefined || seconds < 1 ? 'just now' : `${plural(seconds, 'second', 'seconds')} ago`}; it refreshes by itself while this page is open.
      </p>
      <p class="analytics-summary">{summarise(stats, filters)}</p>
      <Headline stats={stats} filters={filters} />
      <div class="analytics-daily">
        <VisitsChart spec={spec} caption={`Visits per ${hourly ? 'hour' : 'day'} (${filters.tz})`} tableId="time-visits" />
        <TimeTable stats={stats} filters={filters} hourly={hourly} id="time-visits" />
      </div>
      <GapList gaps={stats.gaps} tz={filters.tz} />
      <p class="hint">Countries, devices, browsers, operating systems and referrers are counted per UTC day.</p>
      <div class="analytics-map">
        <WorldMap counts={countries} tableId="countries-table" gapNote={gapNote} />
        <BarTable caption="Countries" column="Country" id="countries-table" total={total(rows.countries)} rows={rows.countries} />
      </div>
      <div class="analytics-rankings">
        <BarTable caption="Devices" column="Device" total={total(rows.devices)} rows={rows.devices} />
        <BarTable caption="Browsers" column="Browser" total={total(rows.browsers)} rows={rows.browsers} />
        <BarTable caption="Operating systems" column="Operating system" total={total(rows.systems)} rows={rows.systems} />
        <BarTable caption="Referrers" column="Referrer" total={total(rows.referrers)} rows={rows.referrers} />
      </div>
    </>
  );
}

const total = (rows: BarRow[]) => rows.reduce((sum, row) => sum + row.count, 0);

function rankings(stats: Stats) {
  const named = (value: string) => OTHER[value] ?? value;
  return {
    countries: stats.countries.map((c) => ({ name: countryName(c.country), count: c.count })),
    devices: stats.devices.flatMap((d) => ('device' in d ? [{ name: capital(d.device), count: d.count }] : [])),
    browsers: stats.devices.flatMap((d) => ('browser' in d ? [{ name: named(d.browser), count: d.count }] : [])),
    systems: stats.devices.flatMap((d) => ('os' in d ? [{ name: named(d.os), count: d.count }] : [])),
    referrers: stats.referrers.map((r) => ({ name: referrerName(r.referrer), count: r.count })),
  };
}
