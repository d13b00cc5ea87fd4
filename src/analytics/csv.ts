import { csvCell } from '../platform/csv-cell.js';
import type { Gap } from './ports.js';

/** One aggregated row: a day's visits of one dimension value. */
export interface CsvRow {
  day: string;
  dimension: string;
  value: string;
  count: number;
}

/** Part of the API (ADR 0055). */
export const CSV_HEADER = 'kind,date,dimension,value,count,gap_from,gap_to,gap_reason';

/** Gap times are Unix milliseconds. */
export function toCsv(rows: CsvRow[], gaps: Gap[]): string {
  const lines = [CSV_HEADER];
  for (const r of rows) lines.push(`visits,${r.day},${csvCell(r.dimension)},${csvCell(r.value)},${r.count},,,`);
  for (const g of gaps) lines.push(`gap,,,,,${g.from},${g.to},${csvCell(g.reason)}`);
  return `${lines.join('\r\n')}\r\n`;
}
