import { formatNumber } from '../../ui/format.js';
import './charts.css';

export interface BarRow {
  name: string;
  count: number;
}

/**
 * A ranking as a table: each row's count, its share in words, and a bar drawn to that share (the bar
 * is decoration; the numbers are the content).
 */
export function BarTable({ caption, column, rows, total, id }: { caption: string; column: string; rows: BarRow[]; total: number; id?: string }) {
  if (rows.length === 0) return null;
  return (
    <table class="bar-table cards" id={id}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{column}</th>
          <th scope="col" class="number">
            Visits
          </th>
          <th scope="col">Share</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const share = total > 0 ? (row.count / total) * 100 : 0;
          return (
            <tr key={row.name}>
              <th scope="row" data-label={column}>
                {row.name}
              </th>
              <td class="number" data-label="Visits">
                {formatNumber(row.count)}
              </td>
              <td class="share" data-label="Share">
                {share < 1 && share > 0 ? 'under 1%' : `${Math.round(share)}%`}
                <span class="bar-track" aria-hidden="true">
                  <span class="bar-fill" style={{ width: `${share}%` }} />
                </span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
