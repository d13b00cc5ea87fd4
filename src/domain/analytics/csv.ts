import type { Gap, RollupRow } from './ports.js';

/** The documented CSV header (docs/decisions.md, "Analytics"). */
export const CSV_HEADER = 'kind,date,dimension,value,count,gap_from,gap_to,gap_reason';

/**
 * Quotes a field when it needs it, and defuses values a spreadsheet would run as a formula
 * (=, +, -, @ at the start): referrer hosts and browser names come from request headers.
 */
function field(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One row per day and dimension value, then one row per gap; times of gaps are Unix milliseconds. */
export function toCsv(rows: RollupRow[], gaps: Gap[]): string {
  const lines = [CSV_HEADER];
  for (const r of rows) lines.push(`visits,${r.day},${r.dimension},${field(r.value)},${r.count},,,`);
  for (const g of gaps) lines.push(`gap,,,,,${g.from},${g.to},${g.reason}`);
  return `${lines.join('\r\n')}\r\n`;
}
