/** Marked entries moved to the back by one eviction at most: it must not hold a request up. */
const MAX_SECOND_CHANCES = 64;

/**
 * A bounded map that evicts by the CLOCK rule (second chance), an approximation of least recently
 * used: a hit only marks its entry; when the map is full, the oldest entries are looked at in
 * insertion order, a marked one is unmarked and moved to the back, and the first unmarked one is
 * evicted, or the 65th looked at if the first 64 were all marked (when every entry was hit since the
 * last sweep, an unbounded sweep would move all of them: 42 ms for 100,000 entries, on a request). The redirect path looks a slug up on every request: with lru-cache each hit also relinks
 * the entry in its recency list, memory far from the entry, and the lookup was 5.6% of the service's
 * CPU under the redirect benchmark (docs/benchmarks.md). Hand-written because it is thirty lines and
 * the cost is in exactly what a library's exact LRU order must do.
 *
 * The values carry the mark themselves (`used`): a hit then reads one object, where a wrapper around
 * the value was one more object to fetch from memory on every redirect (docs/benchmarks.md, "Sixth
 * session"). A value belongs to one cache.
 */
export interface Marked {
  used: boolean;
}

export class ClockCache<K, V extends Marked> {
  private readonly map = new Map<K, V>();

  constructor(private readonly max: number) {
    if (!(max >= 1)) throw new RangeError('ClockCache needs room for one entry');
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) value.used = true;
    return value;
  }

  set(key: K, value: V): void {
    if (this.map.has(key)) {
      value.used = true;
    } else {
      if (this.map.size >= this.max) this.evictOne();
      value.used = false;
    }
    this.map.set(key, value);
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  private evictOne(): void {
    let chances = 0;
    for (const [key, value] of this.map) {
      this.map.delete(key);
      if (!value.used || chances++ === MAX_SECOND_CHANCES) return;
      value.used = false;
      this.map.set(key, value);
    }
  }
}
