import { formatNumber, share } from '../../ui/format.js';
import { bestPlacements } from './best-placement.js';
import { linkNames, type TagStats } from './campaign-chart.js';

const COLUMNS = ['Short link', 'QR code', 'Visits', 'Unique visitors', 'Share'];

/** A row's figures, each labelled by its column for the cards of a phone. */
function Numbers(row: { s: number; q: number; total: number; visitors: number; share: string }) {
  return (
    <>
      {[formatNumber(row.s), formatNumber(row.q), formatNumber(row.total), formatNumber(row.visitors), row.share].map((value, i) => (
        <td class="number" data-label={COLUMNS[i]} key={COLUMNS[i]}>
          {value}
        </td>
      ))}
    </>
  );
}

/** One row per link of the campaign, busiest first, the best placement (or those tied for it) highlighted; the campaign's sums below. */
export function CampaignTable({ stats, tag }: { stats: TagStats; tag: string }) {
  const best = bestPlacements(stats.links);
  const names = linkNames(stats.links);
  return (
    <table class="campaign-table cards">
      <caption>Links tagged “{tag}”, by visits</caption>
      <thead>
        <tr>
          <th scope="col">Link</th>
          {COLUMNS.map((name) => (
            <th scope="col" class="number" key={name}>
              {name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {stats.links.map((link) => (
          <tr key={link.id} class={best.ids.has(link.id) ? 'best' : undefined}>
            <th scope="row" data-label="Link">
              <a href={`/app/links/${link.id}`}>{names.get(link.id)}</a>
              {best.ids.has(link.id) && <span class="badge"> {best.label}</span>}
            </th>
            <Numbers s={link.s} q={link.q} total={link.total} visitors={link.visitors} share={share(link.total, stats.total)} />
          </tr>
        ))}
      </tbody>
      {stats.links.length > 1 && (
        <tfoot>
          <tr>
            <th scope="row">All links</th>
            <Numbers s={stats.s} q={stats.q} total={stats.total} visitors={stats.visitors} share={share(stats.total, stats.total)} />
          </tr>
        </tfoot>
      )}
    </table>
  );
}
