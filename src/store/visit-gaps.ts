import crypto from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Shortfall } from '../domain/analytics/ports.js';
import type { AnalyticsDB } from './analytics-schema.js';
import type { Dialect } from './database.js';
import { jsonRows, type Column } from './json-rows.js';

/** A refusal this close after the previous one of the same link and reason extends that gap. */
export const GAP_MERGE_MS = 3_600_000;

const COLUMNS: Column[] = [
  ['id', 'text'],
  ['link_id', 'text'],
  ['reason', 'text'],
  ['gap_from', 'bigint'],
  ['gap_to', 'bigint'],
];

/**
 * Writes a flush's refusals as gaps: each extends its link's latest gap of the same reason when that
 * ended within GAP_MERGE_MS, or starts a new one. Set-based, whatever the number of links: one update
 * for the extensions, one insert for the rest (and on PostgreSQL one select that locks the rows to
 * extend, in order). Past the daily ceiling every busy link is refused at every flush, and a statement
 * per link held the day's row, and with it every other instance's flush, for as long as they took.
 * Gaps of every link (null) are never extended: SQL's null equals nothing.
 */
export async function addGaps(tx: Transaction<AnalyticsDB>, dialect: Dialect, shortfalls: Shortfall[]): Promise<void> {
  // One entry per link and reason: a batch that spans midnight can refuse a link on both days.
  const byKey = new Map<string, Shortfall>();
  for (const s of shortfalls) {
    const key = `${s.linkId ?? '\u0000'}|${s.reason}`;
    const known = byKey.get(key);
    if (known) byKey.set(key, { ...known, count: known.count + s.count, from: Math.min(known.from, s.from), to: Math.max(known.to, s.to) });
    else byKey.set(key, s);
  }
  if (byKey.size === 0) return;
  // Sorted: the order of every flush's locks (visit-store.ts).
  const gaps = [...byKey].sort(([a], [b]) => (a < b ? -1 : 1));
  const rows = jsonRows(dialect, gaps.map(([, g]) => ['', g.linkId, g.reason, g.from, g.to]), COLUMNS);
  const recent = sql`visit_gaps.link_id = v.link_id and visit_gaps.reason = v.reason and visit_gaps.to_ms >= v.gap_from - ${GAP_MERGE_MS}`;
  if (dialect === 'postgres') {
    await sql`select visit_gaps.id from visit_gaps join ${rows} as v on ${recent}
      order by visit_gaps.link_id, visit_gaps.reason, visit_gaps.id for update of visit_gaps`.execute(tx);
  }
  const extended = await sql<{ link_id: string; reason: string }>`update visit_gaps
    set from_ms = case when visit_gaps.from_ms > v.gap_from then v.gap_from else visit_gaps.from_ms end,
      to_ms = case when visit_gaps.to_ms < v.gap_to then v.gap_to else visit_gaps.to_ms end
    from ${rows} as v where ${recent}
    returning visit_gaps.link_id, visit_gaps.reason`.execute(tx);
  const done = new Set(extended.rows.map((row) => `${row.link_id}|${row.reason}`));
  const fresh = gaps.filter(([key]) => !done.has(key)).map(([, g]) => [crypto.randomUUID(), g.linkId, g.reason, g.from, g.to]);
  if (fresh.length === 0) return;
  await sql`insert into visit_gaps (id, link_id, reason, from_ms, to_ms)
    select id, link_id, reason, gap_from, gap_to from ${jsonRows(dialect, fresh, COLUMNS)} as v`.execute(tx);
}
