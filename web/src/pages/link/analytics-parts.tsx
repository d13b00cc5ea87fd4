import { formatNumber, plural } from '../../ui/format.js';
import { dayStart } from '../../components/charts/utc-days.js';
import type { Stats, StatsGap } from './use-stats.js';

/** Each reason the API gives for a gap, in words. */
export const GAP_WORDS: Record<StatsGap['reason'], string> = {
  allowance_used_up: 'Monthly recording allowance used up',
  daily_ceiling_reached: "Service's daily recording ceiling reached",
  bot_ceiling_reached: "Service's daily ceiling of bot visits reached",
  recording_unavailable: 'Recording was unavailable',
};

const utc = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' });
const DAY_SECONDS = 86_400;

const gapsOn = (date: string, gaps: StatsGap[]) => {
  const start = dayStart(date) * 1000;
  return gaps.filter((g) => g.from < start + DAY_SECONDS * 1000 && g.to > start);
};

/** A gap's period to the minute; one that starts and ends within a minute is said as one time. */
function period(gap: StatsGap): string {
  const [from, to] = [utc.format(gap.from), utc.format(gap.to)];
  return from === to ? `At ${from}` : `${from} to ${to}`;
}

export function Totals({ stats }: { stats: Stats }) {
  const s = stats.daily.reduce((sum, d) => sum + d.s, 0);
  const q = stats.daily.reduce((sum, d) => sum + d.q, 0);
  return (
    <dl class="figures analytics-totals">
      <div>
        <dt>Visits</dt>
        <dd class="big-number">{formatNumber(stats.total)}</dd>
      </div>
      <div>
        <dt>Through the short URL</dt>
        <dd class="big-number">{formatNumber(s)}</dd>
      </div>
      <div>
        <dt>Through the QR code</dt>
        <dd class="big-number">{formatNumber(q)}</dd>
      </div>
    </dl>
  );
}

/** The chart's numbers, newest day first, with the days recording stopped: the chart's accessible equivalent. */
export function DailyTable({ stats, id }: { stats: Stats; id: string }) {
  const days = [...stats.daily].reverse();
  return (
    <div class="daily-table" tabindex={0} role="region" aria-labelledby={`${id}-caption`}>
      <table id={id}>
        <caption id={`${id}-caption`}>Daily visits (UTC days)</caption>
        <thead>
          <tr>
            <th scope="col">Date (UTC)</th>
            <th scope="col" class="number">
              Short link
            </th>
            <th scope="col" class="number">
              QR code
            </th>
            <th scope="col" class="number">
              Total
            </th>
            <th scope="col">Not recorded</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.date}>
              <th scope="row" class="nowrap">
                {day.date}
              </th>
              <td class="number">{formatNumber(day.s)}</td>
              <td class="number">{formatNumber(day.q)}</td>
              <td class="number">{formatNumber(day.total)}</td>
              <td>{[...new Set(gapsOn(day.date, stats.gaps).map((g) => GAP_WORDS[g.reason]))].join('; ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The periods in which visits were not recorded, in words, as the shaded bands of the chart show them. */
export function GapList({ gaps }: { gaps: StatsGap[] }) {
  if (gaps.length === 0) return <p class="hint">Every visit in this period was recorded.</p>;
  return (
    <div class="notice warning">
      <p>Visits were not recorded for {plural(gaps.length, 'period', 'periods')} (shaded on the chart); they cannot be recovered:</p>
      <ul>
        {gaps.map((gap) => (
          <li key={`${gap.from}-${gap.reason}`}>
            {period(gap)} UTC: {GAP_WORDS[gap.reason]}
          </li>
        ))}
      </ul>
    </div>
  );
}
