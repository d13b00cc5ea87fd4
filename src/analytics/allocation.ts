import type { DayVisits } from './ports.js';

/**
 * Trial links have no account; grouped under a key that sorts after every account id (UUIDs are
 * hex), they take what the daily ceiling has left after accounts, not before them.
 */
export const TRIAL_GROUP = '~trial';

/** Visits of one day per account (trial links as TRIAL_GROUP), accounts in ascending order: the lock order. */
export function accountTotals(day: DayVisits): [string, number][] {
  // Per link first (a typed array indexed by the day's link index), then per account: one map
  // update per link, not per visit.
  const perLink = new Uint32Array(day.links.length);
  for (let i = 0; i < day.count; i++) perLink[day.link(i)]!++;
  const totals = new Map<string, number>();
  for (let l = 0; l < perLink.length; l++) {
    // The link table is shared by the recorder's buffers: most of its links may have no visit here.
    if (perLink[l] === 0) continue;
    const key = day.accounts[l] ?? TRIAL_GROUP;
    totals.set(key, (totals.get(key) ?? 0) + perLink[l]!);
  }
  return [...totals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export interface Trimmed {
  /** keep[i] === 1 when visit i is recorded; null when every visit is. */
  keep: Uint8Array | null;
  kept: number;
  /** Refused visits per link, with the link's account group (the allowance that refused them). */
  refused: Map<string, { account: string; count: number }>;
}

/**
 * Keeps each account's first `granted` visits in arrival order and refuses the rest, per link. Pure, so
 * the rule is tested without a database. `totals` are accountTotals(day), passed by a caller that has them.
 */
export function trim(day: DayVisits, granted: Map<string, number>, totals = accountTotals(day)): Trimmed {
  const n = day.count;
  let short = false;
  const left = new Map<string, number>();
  for (const [account, total] of totals) {
    const got = granted.get(account) ?? 0;
    left.set(account, got);
    if (got < total) short = true;
  }
  if (!short) return { keep: null, kept: n, refused: new Map() };
  const keep = new Uint8Array(n);
  const refused = new Map<string, { account: string; count: number }>();
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const l = day.link(i);
    const account = day.accounts[l] ?? TRIAL_GROUP;
    const budget = left.get(account)!;
    if (budget > 0) {
      left.set(account, budget - 1);
      keep[i] = 1;
      kept++;
    } else {
      const link = day.links[l]!;
      const known = refused.get(link);
      if (known) known.count++;
      else refused.set(link, { account, count: 1 });
    }
  }
  return { keep, kept, refused };
}
