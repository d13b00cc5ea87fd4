import type { DayVisits } from './ports.js';

/**
 * Trial links have no account; grouped under a key that sorts after every account id (UUIDs are
 * hex), they take what the daily ceiling has left after accounts, not before them.
 */
export const TRIAL_GROUP = '~trial';

/** Visits of one day per account (trial links as TRIAL_GROUP), accounts in ascending order: the lock order. */
export function accountTotals(day: DayVisits): [string, number][] {
  const counts = new Map<string, number>();
  countAccounts(day, 0, day.accounts.length, counts);
  return sortedTotals(counts);
}

/**
 * Counts visits [from, to) of the day into `counts`, per account: a busy second holds tens of
 * thousands of visits, which a caller on the event loop counts a slice at a time.
 */
export function countAccounts(day: DayVisits, from: number, to: number, counts: Map<string, number>): void {
  for (let i = from; i < to; i++) {
    const key = day.accounts[i] ?? TRIAL_GROUP;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
}

export const sortedTotals = (counts: Map<string, number>): [string, number][] => [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

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
  const n = day.links.length;
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
    const account = day.accounts[i] ?? TRIAL_GROUP;
    const budget = left.get(account)!;
    if (budget > 0) {
      left.set(account, budget - 1);
      keep[i] = 1;
      kept++;
    } else {
      const link = day.links[i]!;
      const known = refused.get(link);
      if (known) known.count++;
      else refused.set(link, { account, count: 1 });
    }
  }
  return { keep, kept, refused };
}
