import type { VisitCount } from './ports.js';

/**
 * Splits `granted` visits over counts in their order (oldest aggregation key first): the granted part
 * is recorded, the rest is refused and reported per link. Pure, so the rule is tested without a database.
 */
export function allocate(counts: VisitCount[], granted: number): { kept: VisitCount[]; refused: Map<string, number> } {
  const kept: VisitCount[] = [];
  const refused = new Map<string, number>();
  let left = granted;
  for (const count of counts) {
    const take = Math.min(left, count.count);
    left -= take;
    if (take === count.count) kept.push(count);
    else if (take > 0) kept.push({ ...count, count: take });
    if (take < count.count) refused.set(count.linkId, (refused.get(count.linkId) ?? 0) + count.count - take);
  }
  return { kept, refused };
}

/** Groups items by a key, keys in ascending order (a fixed lock order for concurrent flushes). */
export function groupSorted<T>(items: T[], key: (item: T) => string): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export const sum = (counts: readonly { count: number }[]): number => counts.reduce((total, c) => total + c.count, 0);
