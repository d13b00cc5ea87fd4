/** Slots of a ResettingCache's front table (a power of two). */
const SLOTS = 1024;

/**
 * A cheap stand-in for a key's hash: its length and six characters spread over it, mixed. Collisions
 * only send a lookup on to the Map.
 */
function slotOf(key: string): number {
  const n = key.length;
  let h = n;
  if (n > 0) {
    h = Math.imul(h ^ key.charCodeAt(n - 1), 0x01000193);
    h = Math.imul(h ^ key.charCodeAt(n >> 1), 0x01000193);
    h = Math.imul(h ^ key.charCodeAt(n >> 2), 0x01000193);
    h = Math.imul(h ^ key.charCodeAt((n * 3) >> 2), 0x01000193);
    h = Math.imul(h ^ key.charCodeAt(n > 3 ? n - 3 : 0), 0x01000193);
    h = Math.imul(h ^ key.charCodeAt(n > 7 ? n - 7 : 0), 0x01000193);
  }
  return (h ^ (h >>> 16)) & (SLOTS - 1);
}

/**
 * A Map that forgets everything when it is full. Cheaper per hit than an LRU (no recency bookkeeping,
 * which showed up in redirect profiles); real traffic repeats a few thousand user agents and referrers,
 * so a rare reset costs a few re-parses, while a flood of distinct values cannot grow memory.
 *
 * In front of the Map, a direct-mapped table of the keys last found, by slotOf: every request's
 * User-Agent is a new string, and the Map must hash all of it first (about 150 ns for a browser's
 * 130 characters, the largest cost of a visit's own code in redirect profiles; docs/benchmarks.md),
 * where a slot costs six characters and one comparison. Hand-written: no library keys a cache this way.
 *
 * Used by the visit classifier (analytics/classify.ts) and the country lookup (http/country.ts) on
 * the redirect path, and by networkOf (network.ts: the flood guard's IPv6 networks, trial allowances).
 */
export class ResettingCache<V> {
  private readonly map = new Map<string, V>();
  private readonly keys: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);
  private readonly values: (V | undefined)[] = new Array<V | undefined>(SLOTS).fill(undefined);
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const slot = slotOf(key);
    if (this.keys[slot] === key) return this.values[slot];
    const value = this.map.get(key);
    if (value !== undefined) this.remember(slot, key, value);
    return value;
  }
  set(key: string, value: V): void {
    if (this.map.size >= this.max) {
      this.map.clear();
      this.keys.fill(undefined);
      this.values.fill(undefined);
    }
    this.map.set(key, value);
    this.remember(slotOf(key), key, value);
  }
  private remember(slot: number, key: string, value: V): void {
    this.keys[slot] = key;
    this.values[slot] = value;
  }
}
