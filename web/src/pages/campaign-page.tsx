import type { Static } from '@sinclair/typebox';
import { useState } from 'preact/hooks';
import type { TagStats as TagStatsSchema } from '../../../src/analytics/stats-schemas.js';
import { api } from '../api/client.js';
import { browserZone } from '../components/charts/wall-clock.js';
import type { PageProps } from '../routes.js';
import { Busy, ErrorMessage } from '../ui/form.js';
import { formatNumber } from '../ui/format.js';
import { useResource } from '../ui/use-resource.js';
import { saveFile } from '../components/qr/render-qr-image.js';
import { csvCell } from '../../../src/platform/csv-cell.js';
import '../components/charts/charts.css';

type TagStats = Static<typeof TagStatsSchema>;

/** One tag's links side by side: which placement worked, bots left out, in the browser's time zone. */
export default function CampaignPage({ params }: PageProps) {
  const tag = params.tag ?? '';
  const [days] = useState(30);
  const tz = browserZone();
  const stats = useResource(() => api<TagStats>('GET', `/links/stats?${new URLSearchParams({ tag, days: String(days), bots: 'exclude', tz }).toString()}`));
  const data = stats.data;
  const best = data?.links[0] && data.links[0].total > 0 ? data.links[0].id : undefined;
  const download = () => {
    if (!data) return;
    const lines = ['title,slug,short_link,qr_code,total,share'];
    for (const link of data.links)
      lines.push([csvCell(link.title || link.slug), csvCell(link.slug), link.s, link.q, link.total, share(link.total, data.total)].join(','));
    saveFile(new Blob([`${lines.join('\r\n')}\r\n`], { type: 'text/csv' }), `campaign-${tag}-${days}-days.csv`);
  };
  return (
    <section>
      <h1 tabIndex={-1}>Campaign “{tag}”</h1>
      <p>
        <a href="/app/campaigns">All campaigns</a>
      </p>
      <p class="hint">
        The last {days} days, bots left out, days in {tz}.
      </p>
      <Busy busy={stats.loading && !data} text="Loading the campaign…" />
      <ErrorMessage error={stats.error} />
      {data && (
        <>
          <p class="analytics-summary">
            {best
              ? `${data.links[0]!.title || data.links[0]!.slug} worked best: ${share(data.links[0]!.total, data.total)} of the campaign's ${formatNumber(data.total)} visits.`
              : 'No visits in this campaign yet.'}
          </p>
          <div class="actions">
            <button type="button" class="secondary" onClick={download}>
              Download CSV
            </button>
          </div>
          <table class="campaign-table">
            <caption>Links tagged “{tag}”, by visits</caption>
            <thead>
              <tr>
                <th scope="col">Link</th>
                <th scope="col" class="number">
                  Short link
                </th>
                <th scope="col" class="number">
                  QR code
                </th>
                <th scope="col" class="number">
                  Visits
                </th>
                <th scope="col" class="number">
                  Share
                </th>
              </tr>
            </thead>
            <tbody>
              {data.links.map((link) => (
                <tr key={link.id} class={link.id === best ? 'best' : undefined}>
                  <th scope="row">
                    <a href={`/app/links/${link.id}`}>{link.title || link.slug}</a>
                    {link.id === best && <span class="badge"> Best placement</span>}
                  </th>
                  <td class="number">{formatNumber(link.s)}</td>
                  <td class="number">{formatNumber(link.q)}</td>
                  <td class="number">{formatNumber(link.total)}</td>
                  <td class="number">{share(link.total, data.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

const share = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 100)}%` : '0%');
