import { LRUCache } from 'lru-cache';
import type { LinkStore } from './ports.js';
import { isSlugShaped } from './slugs.js';
import type { Clock } from './time.js';

export type Resolution =
  | { kind: 'redirect'; target: string; linkId: string; accountId: string | null }
  | { kind: 'expired' }
  | { kind: 'missing' };

interface Entry {
  linkId: string;
  accountId: string | null;
  target: string;
  active: boolean;
  expiresAt: number | null;
}

/** Cached "no such slug": a scan of random slugs must not turn into a database query each. */
const MISSING = Object.freeze({ linkId: '', accountId: null, target: '', active: false, expiresAt: null });

/**
 * Resolves slugs for the redirect path from an in-process LRU cache; the database is asked only on a
 * miss. Edits made on this instance evict the entry at once; other instances may serve the old
 * target for at most the TTL (docs/decisions.md).
 */
export class RedirectResolver {
  private readonly cache: LRUCache<string, Entry>;
  /** REDIRECT_CACHE_TTL_MS=0 means no caching at all: every redirect asks the database. */
  private readonly caching: boolean;
  /**
   * Rises on every invalidation. A lookup that started before an edit may have read the old row; if
   * an invalidation happened while it waited, its result is answered but not cached.
   */
  private epoch = 0;

  constructor(
    private readonly links: LinkStore,
    private readonly now: Clock,
    options: { ttlMs: number; maxEntries: number },
  ) {
    this.caching = options.ttlMs > 0;
    // The TTL runs on the service's clock (an edge that tests replace), not on lru-cache's own
    // performance.now; ttlResolution 0 stops lru-cache from reusing a "now" read up to 1 ms earlier.
    this.cache = new LRUCache({ max: options.maxEntries, ttl: Math.max(1, options.ttlMs), ttlAutopurge: false, ttlResolution: 0, perf: { now } });
  }

  async resolve(slug: string): Promise<Resolution> {
    if (!isSlugShaped(slug)) return { kind: 'missing' };
    return this.answer(this.cache.get(slug) ?? (await this.load(slug)));
  }

  /** The synchronous fast path: the answer from memory, or undefined when the database must be asked. */
  peek(slug: string): Resolution | undefined {
    const entry = this.cache.get(slug);
    return entry && this.answer(entry);
  }

  private answer(entry: Entry): Resolution {
    if (entry.expiresAt !== null && entry.expiresAt <= this.now()) return { kind: 'expired' };
    if (!entry.active) return { kind: 'missing' };
    return { kind: 'redirect', target: entry.target, linkId: entry.linkId, accountId: entry.accountId };
  }

  invalidate(slug: string): void {
    this.epoch++;
    this.cache.delete(slug);
  }

  private async load(slug: string): Promise<Entry> {
    const epoch = this.epoch;
    const link = await this.links.bySlug(slug);
    const entry: Entry = link
      ? { linkId: link.id, accountId: link.accountId, target: link.target, active: link.status === 'active', expiresAt: link.expiresAt }
      : MISSING;
    if (this.caching && epoch === this.epoch) this.cache.set(slug, entry);
    return entry;
  }
}
