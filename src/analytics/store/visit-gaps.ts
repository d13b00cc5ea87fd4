import crypto from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Shortfall } from '../ports.js';
import type { DB } from '../../platform/database/schema.js';
import type { Dialect } from '../../platform/database/database.js';
import { jsonRows, type Column } from '../../platform/database/json-rows.js';
import { lockSelected } from '../../platform/database/additive.js';
import { addShortfall } from '../counts.js';
import { DAY_MS } from '../../platform/time.js';

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
 * Set-based, since past the daily ceiling every busy link is refused at every flush (ADR 0049). Service-wide gaps (link null) are
 * never extended: SQL's null equals nothing.
 */
export async function addGaps(tx: Transaction<DB>, dialect: Dialect, shortfalls: Shortfall[]): Promise<void> {
  // One entry per link and reason: a batch that spans midnight can refuse a link on both days.
  const byKey = new Map<string, Shortfall>();
  for (const s of shortfalls) addShortfall(byKey, s);
  if (byKey.size === 0) return;
  // Sorted: the order of every flush's locks (recording-store.ts).
  const gaps = [...byKey].sort(([a], [b]) => (a < b ? -1 : 1));
  const rows = jsonRows(
    dialect,
    gaps.map(([, g]) => ['', g.linkId, g.reason, g.from, g.to]),
    COLUMNS,
  );
  const recent = sql`visit_gaps.link_id = v.link_id and visit_gaps.reason = v.reason and visit_gaps.to_ms >= v.gap_from - ${GAP_MERGE_MS}`;
  const locking = sql`select visit_gaps.id from visit_gaps join ${rows} as v on ${recent} order by visit_gaps.link_id, visit_gaps.reason, visit_gaps.id`;
  await lockSelected(tx, dialect, locking, 'visit_gaps');
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

/** DELETE … RETURNING claims each dead instance once, even when several instances reap together (ADR 0052). */
export async function reapSilentInstances(tx: Transaction<DB>, staleBefore: number, now: number, self: string): Promise<number> {
  const dead = await tx
    .deleteFrom('recorder_instances')
    .where('beat_at', '<', staleBefore)
    .where('id', '<>', self)
    .returning(['beat_at', 'flushed_to'])
    .execute();
  // Kept a day after the instance is gone: one taken for dead while alive needs its row to settle an unanswered flush.
  await tx
    .deleteFrom('recorder_flushes')
    .where('at', '<', now - DAY_MS)
    .where('instance_id', 'not in', tx.selectFrom('recorder_instances').select('id'))
    .execute();
  if (dead.length === 0) return 0;
  const starts = (await tx.selectFrom('recorder_instances').select('started_at').execute()).map((row) => Number(row.started_at));
  for (const d of dead) {
    const to = silenceEnd(d, starts, now - staleBefore, now);
    await tx
      .insertInto('visit_gaps')
      .values({ id: crypto.randomUUID(), link_id: null, reason: 'recording_unavailable', from_ms: d.flushed_to, to_ms: to })
      .execute();
  }
  return dead.length;
}

/** Where recording is known to have resumed (ADR 0052); never before the gap's start, since hosts' clocks may disagree. */
function silenceEnd(dead: { beat_at: number; flushed_to: number }, liveStarts: number[], silenceMs: number, now: number): number {
  const beatAt = Number(dead.beat_at);
  let end = now;
  // An instance started after the last heartbeat recorded from its start; one started before never
  // stopped recording, so the gap ends when the dead one would have written again.
  for (const startedAt of liveStarts) end = Math.min(end, startedAt > beatAt ? startedAt : beatAt + silenceMs);
  return Math.max(Number(dead.flushed_to), end);
}
