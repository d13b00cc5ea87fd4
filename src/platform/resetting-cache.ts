/**
 * A Map that forgets everything when it is full: real traffic repeats a few thousand user agents,
 * referrers and addresses, so a rare reset costs a few re-parses, while a flood of distinct values
 * cannot grow memory. (A front table keyed by a few characters of the key saved about 0.2 µs a
 * redirect, about 1%: not worth its code.)
 */
export class ResettingCache<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(key, value);
  }
}
