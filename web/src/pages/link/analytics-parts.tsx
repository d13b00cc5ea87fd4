import { formatNumber, plural } from '../../ui/format.js';
import { dayStart } from '../../components/charts/utc-days.js';
import { wallSeconds } from '../../components/charts/wall-clock.js';
import type { Stats, StatsFilters, StatsGap } from './use-stats.js';

/** Each reason the API gives for a gap, in words. */
export const GAP_WORDS: Record<StatsGap['reason'], string> = {
  allowance_used_up: 'Monthly recording allowance used up',
  daily_ceiling_reached: "Service's daily recording ceiling reached",
  bot_ceiling_reached: "Service's daily ceiling of bot visits reached",
  recording_unavailable: 'Recording was unavailable',
};

/** The gaps' reasons that overlap [from, to) on the zone's wall clock, in words. */
export function gapWords(gaps: StatsGap[], tz: string, from: number, to: number): string {
  const hit = gaps.filter((g) => wallSeconds(g.from, tz) < to && wallSeconds(g.to, tz) >= from);
  return [...new Set(hit.map((g) => GAP_WORDS[g.reason]))].join('; ');
}

const sum = (stats: Stats, key: 's' | 'q' | 'visitors' | 'bots') => stats.daily.reduce((total, d) => total + d[key], 0);

function Figure({ label, value, hint }: { label: string; value: number; hint?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd class="big-number">{formatNumber(value)}</dd>
      {hint && <dd class="hint">{hint}</dd>}
    </div>
  );
}

/** The headline: people first (visits without bots, unique visitors), then the two ways in. */
export function Headline({ stats, filters }: { stats: Stats; filters: StatsFilters }) {
  return (
    <dl class="figures analytics-totals">
      <Figure label={filters.bots ? 'Visits, bots included' : 'Visits'} value={stats.total} hint={filters.bots ? undefined : 'Bots left out'} />
      <Figure label="Unique visitors" value={sum(stats, 'visitors')} hint="Each counted once a day, estimated" />
      {filters.source !== 's' && <Figure label="Through the QR code" value={sum(stats, 'q')} />}
      {filters.source !== 'q' && <Figure label="Through the short link" value={sum(stats, 's')} />}
      {filters.bots && <Figure label="Of them bots" value={sum(stats, 'bots')} />}
    </dl>
  );
}

/** The chart's numbers, newest first, with the times recording stopped: the chart's accessible equivalent. */
export function TimeTable({ stats, filters, hourly, id }: { stats: Stats; filters: StatsFilters; hourly: boolean; id: string }) {
  const days = [...stats.daily].reverse();
  const caption = `${hourly ? 'Hourly' : 'Daily'} visits (${filters.tz})`;
  return (
    <div class="daily-table" tabindex={0} role="region" aria-labelledby={`${id}-caption`}>
      <table id={id}>
        <caption id={`${id}-caption`}>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            {hourly ? (
              <>
                <th scope="col">Hour</th>
                <th scope="col" class="number">
                  Visits
                </th>
              </>
            ) : (
              <>
                {filters.source !== 'q' && (
                  <th scope="col" class="number">
                    Short link
                  </th>
                )}
                {filters.source !== 's' && (
                  <th scope="col" class="number">
                    QR code
                  </th>
                )}
                <th scope="col" class="number">
                  Total
                </th>
                <th scope="col" class="number">
                  Unique visitors
                </th>
              </>
            )}
            <th scope="col">Not recorded</th>
          </tr>
        </thead>
        <tbody>{hourly ? days.flatMap((day) => hourRows(day, stats.gaps, filters.tz)) : days.map((day) => dayRow(day, stats.gaps, filters))}</tbody>
      </table>
    </div>
  );
}

type Day = Stats['daily'][number];

function dayRow(day: Day, gaps: StatsGap[], filters: StatsFilters) {
  const start = dayStart(day.date);
  return (
    <tr key={day.date}>
      <th scope="row" class="nowrap">
        {day.date}
      </th>
      {filters.source !== 'q' && <td class="number">{formatNumber(day.s)}</td>}
      {filters.source !== 's' && <td class="number">{formatNumber(day.q)}</td>}
      <td class="number">{formatNumber(day.total)}</td>
      <td class="number">{formatNumber(day.visitors)}</td>
      <td>{gapWords(gaps, filters.tz, start, start + 86_400)}</td>
    </tr>
  );
}

function hourRows(day: Day, gaps: StatsGap[], tz: string) {
  const start = dayStart(day.date);
  return day.hours
    .map((count, hour) => (
      <tr key={`${day.date}-${hour}`}>
        <th scope="row" class="nowrap">
          {day.date}
        </th>
        <td class="nowrap">{`${String(hour).padStart(2, '0')}:00`}</td>
        <td class="number">{formatNumber(count)}</td>
        <td>{gapWords(gaps, tz, start + hour * 3600, start + (hour + 1) * 3600)}</td>
      </tr>
    ))
    .reverse();
}

/** The periods in which visits were not recorded, in words and on the zone's clock, as the chart shades them. */
export function GapList({ gaps, tz }: { gaps: StatsGap[]; tz: string }) {
  if (gaps.length === 0) return <p class="hint">Every visit in this period was recorded.</p>;
  const clock = new Intl.DateTimeFormat('en-GB', { timeZone: tz, dateStyle: 'medium', timeStyle: 'short' });
  const period = (gap: StatsGap) => {
    const [from, to] = [clock.format(gap.from), clock.format(gap.to)];
    return from === to ? `At ${from}` : `${from} to ${to}`;
  };
  return (
    <div class="notice warning">
      <p>Visits were not recorded for {plural(gaps.length, 'period', 'periods')} (shaded on the charts); they cannot be recovered:</p>
      <ul>
        {gaps.map((gap) => (
          <li key={`${gap.from}-${gap.reason}`}>
            {period(gap)} ({tz}): {GAP_WORDS[gap.reason]}
          </li>
        ))}
      </ul>
    </div>
  );
}
