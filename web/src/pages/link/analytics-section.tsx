import { useState } from 'preact/hooks';
import { apiBlob } from '../../api/client.js';
import type { LinkCreated } from '../../api/types.js';
import { browserZone } from '../../components/charts/wall-clock.js';
import { saveFile } from '../../components/qr/render-qr-image.js';
import { Busy, ErrorMessage } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';
import { AnalyticsControls } from './analytics-controls.js';
import { StatsView } from './analytics-view.js';
import { statsQuery, useStats, type StatsFilters } from './use-stats.js';
import '../../components/charts/charts.css';

export interface AnalyticsSectionProps {
  link: LinkCreated;
  /** Present on a trial link's page: the token that may read the trial link's stats. */
  trialToken?: string;
}

/**
 * Which poster worked: the link's visits over the last 7 days (by hour) or 30 or 90 days (by day), in
 * the browser's time zone unless another is chosen, bots left out unless asked for, through both ways
 * in or one. Every figure, chart, table and the CSV follow the same filters; the section refreshes by
 * itself while the page is open.
 */
export function AnalyticsSection({ link, trialToken }: AnalyticsSectionProps) {
  const [filters, setFilters] = useState<StatsFilters>(() => ({ days: 30, source: 'both', bots: false, tz: browserZone() }));
  const { stats, error, loading } = useStats(link.id, filters, trialToken);
  const csv = useAction(async () => {
    const blob = await apiBlob('GET', `/links/${encodeURIComponent(link.id)}/stats?${statsQuery(filters)}&format=csv`, undefined, { trialToken });
    const range = stats ? `${stats.daily[0]?.date}-${stats.daily.at(-1)?.date}` : `${filters.days}-days`;
    const narrowed = `${filters.source === 'both' ? '' : filters.source === 'q' ? '-qr' : '-short-link'}${filters.bots ? '' : '-without-bots'}`;
    saveFile(blob, `stats-${link.slug}-${range}${narrowed}.csv`);
  });
  return (
    <section aria-labelledby="analytics-heading" class="analytics">
      <h2 id="analytics-heading">Analytics</h2>
      <p class="hint">Counts are redirects (not confirmed scans). A visitor is counted once a day without being identified.</p>
      <AnalyticsControls name={`analytics-${link.id}`} filters={filters} onChange={setFilters}>
        <button type="button" class="secondary" disabled={csv.busy} onClick={() => void csv.run()}>
          Download CSV
        </button>
        <Busy busy={csv.busy} text="Preparing the CSV…" />
      </AnalyticsControls>
      <ErrorMessage error={csv.error} />
      <ErrorMessage error={error} />
      {stats ? <StatsView stats={stats} filters={filters} /> : <Busy busy={loading} text="Loading the analytics…" />}
    </section>
  );
}
