import { useState } from 'preact/hooks';
import { apiBlob } from '../../api/client.js';
import type { LinkCreated } from '../../api/types.js';
import { BarTable } from '../../components/charts/bar-table.js';
import { VisitsChart } from '../../components/charts/visits-chart.js';
import { saveFile } from '../../components/qr/render-qr-image.js';
import { Busy, ErrorMessage } from '../../ui/form.js';
import { plural } from '../../ui/format.js';
import { useAction } from '../../ui/use-action.js';
import { DailyTable, GapList, Totals } from './analytics-parts.js';
import { useSecondsSince, useStats, type Stats } from './use-stats.js';
import '../../components/charts/charts.css';

export interface AnalyticsSectionProps {
  link: LinkCreated;
  /** Present on a trial link's page: the token that may read the trial link's stats. */
  trialToken?: string;
}

const PERIODS = [7, 30, 90] as const;
const regions = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'region' }) : undefined;
const countryName = (code: string) => (code === 'unknown' ? 'Unknown' : (regions?.of(code) ?? code));
const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
const referrerName = (value: string) => ({ direct: 'Direct (no referrer)', unknown: 'Unknown', other: 'Others' })[value] ?? value;

/**
 * The link's visits over the last 7, 30 or 90 UTC days, refreshed by itself while the page is open:
 * totals, a chart with its table, gaps in recording, countries, devices and referrers, and the CSV.
 */
export function AnalyticsSection({ link, trialToken }: AnalyticsSectionProps) {
  const [days, setDays] = useState<number>(30);
  const { stats, error, loading } = useStats(link.id, days, trialToken);
  const csv = useAction(async () => {
    const blob = await apiBlob('GET', `/links/${encodeURIComponent(link.id)}/stats?days=${days}&format=csv`, undefined, { trialToken });
    const range = stats ? `${stats.daily[0]?.date}-${stats.daily.at(-1)?.date}` : `${days}-days`;
    saveFile(blob, `stats-${link.slug}-${range}.csv`);
  });
  return (
    <section aria-labelledby="analytics-heading" class="analytics">
      <h2 id="analytics-heading">Analytics</h2>
      <p class="hint">Counts are redirects (not people, not confirmed scans). Days are UTC days.</p>
      <div class="analytics-bar">
        <fieldset class="periods">
          <legend>Period</legend>
          {PERIODS.map((n) => (
            <label key={n} class="period">
              <input type="radio" name={`period-${link.id}`} value={n} checked={days === n} onChange={() => setDays(n)} /> {n} days
            </label>
          ))}
        </fieldset>
        <div class="actions">
          <button type="button" class="secondary" disabled={csv.busy} onClick={() => void csv.run()}>
            Download CSV
          </button>
          <Busy busy={csv.busy} text="Preparing the CSV…" />
        </div>
      </div>
      <ErrorMessage error={csv.error} />
      <ErrorMessage error={error} />
      {stats ? <StatsView stats={stats} /> : <Busy busy={loading} text="Loading the analytics…" />}
    </section>
  );
}

function StatsView({ stats }: { stats: Stats }) {
  const seconds = useSecondsSince(stats.refreshedAt);
  const first = stats.daily[0]?.date;
  const last = stats.daily.at(-1)?.date;
  return (
    <>
      <p class="hint">
        {first} to {last} (UTC). Updated {seconds === undefined || seconds < 1 ? 'just now' : `${plural(seconds, 'second', 'seconds')} ago`}; it refreshes by
        itself while this page is open.
      </p>
      <Totals stats={stats} />
      <div class="analytics-daily">
        <VisitsChart days={stats.daily} gaps={stats.gaps} tableId="daily-visits" />
        <DailyTable stats={stats} id="daily-visits" />
      </div>
      <GapList gaps={stats.gaps} />
      {stats.total === 0 && <p>No visits recorded in this period yet.</p>}
      <div class="analytics-rankings">
        <BarTable
          caption="Countries"
          column="Country"
          total={stats.total}
          rows={stats.countries.map((c) => ({ name: countryName(c.country), count: c.count }))}
        />
        <BarTable
          caption="Devices"
          column="Device"
          total={stats.total}
          rows={stats.devices.flatMap((d) => ('device' in d ? [{ name: capital(d.device), count: d.count }] : []))}
        />
        <BarTable
          caption="Referrers"
          column="Referrer"
          total={stats.total}
          rows={stats.referrers.map((r) => ({ name: referrerName(r.referrer), count: r.count }))}
        />
      </div>
    </>
  );
}
