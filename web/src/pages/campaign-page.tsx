import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { browserZone } from '../components/charts/wall-clock.js';
import type { PageProps } from '../routes.js';
import { Busy, ErrorMessage } from '../ui/form.js';
import { formatNumber, share } from '../ui/format.js';
import { useResource } from '../ui/use-resource.js';
import { saveFile } from '../components/qr/render-qr-image.js';
import { csvCell } from '../../../src/platform/csv-cell.js';
import { GapList } from './link/analytics-parts.js';
import { CampaignChart, linkNames, type TagStats } from './campaign/campaign-chart.js';
import { bestSummary } from './campaign/best-placement.js';
import { CampaignTable } from './campaign/campaign-table.js';
import '../components/charts/charts.css';

/** One tag's links side by side: which placement worked, bots left out, in the browser's time zone. */
export default function CampaignPage({ params }: PageProps) {
  const tag = params.tag ?? '';
  const [days] = useState(30);
  const tz = browserZone();
  const stats = useResource(() => api<TagStats>('GET', `/links/stats?${new URLSearchParams({ tag, days: String(days), bots: 'exclude', tz }).toString()}`));
  const data = stats.data;
  const download = () => {
    if (!data) return;
    const lines = ['title,slug,short_link,qr_code,total,unique_visitors,share'];
    for (const link of data.links)
      lines.push([csvCell(link.title || link.slug), csvCell(link.slug), link.s, link.q, link.total, link.visitors, share(link.total, data.total)].join(','));
    saveFile(new Blob([`${lines.join('\r\n')}\r\n`], { type: 'text/csv' }), `campaign-${tag}-${days}-days.csv`);
  };
  return (
    <section>
      <h1 tabIndex={-1}>Campaign “{tag}”</h1>
      <p>
        <a href="/app/campaigns">All campaigns</a>
      </p>
      <p class="hint">
        The last {days} days, bots left out, days in {tz}. A visitor is counted once a day without being identified.
      </p>
      <Busy busy={stats.loading && !data} text="Loading the campaign…" />
      <ErrorMessage error={stats.error} />
      {data && (
        <>
          <p class="analytics-summary">{summary(data)}</p>
          <dl class="figures analytics-totals">
            <div>
              <dt>Visits</dt>
              <dd class="big-number">{formatNumber(data.total)}</dd>
            </div>
            <div>
              <dt>Unique visitors</dt>
              <dd class="big-number">{formatNumber(data.visitors)}</dd>
              <dd class="hint">Each counted once a day, also across links</dd>
            </div>
            <div>
              <dt>Through the QR code</dt>
              <dd class="big-number">{formatNumber(data.q)}</dd>
            </div>
            <div>
              <dt>Through the short link</dt>
              <dd class="big-number">{formatNumber(data.s)}</dd>
            </div>
          </dl>
          <div class="actions">
            <button type="button" class="secondary" onClick={download}>
              Download CSV
            </button>
          </div>
          <CampaignTable stats={data} tag={tag} />
          <CampaignChart stats={data} tz={tz} />
          <GapList gaps={data.gaps} tz={tz} />
        </>
      )}
    </section>
  );
}

function summary(data: TagStats): string {
  const names = linkNames(data.links);
  return bestSummary(data.links, data.total, (id) => names.get(id)!);
}
