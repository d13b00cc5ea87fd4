import { LRUCache } from 'lru-cache';
import type { LinkStore } from './ports.js';
import { isSlugShaped } from './slugs.js';
import type { Clock } from './time.js';

export type Resolution =
  | { kind: 'redirect'; target: string; linkId: string; accountId: string | null }
  | { kind: 'expired' }
  | { kind: 'missing' };

interface Entry {
  /** The answer while the link is active and not expired: built once, so a cache hit allocates nothing. */
  redirect: Resolution | undefined;
  expiresAt: number | null;
}

const EXPIRED: Resolution = Object.freeze({ kind: 'expired' });
const MISSING_LINK: Resolution = Object.freeze({ kind: 'missing' });
/** Cached "no such slug": a scan of random slugs must not turn into a database query each. */
const MISSING: Entry = Object.freeze({ redirect: undefined, expiresAt: null });

/** Changes whose rows commit late (long transactions, clock skew between instances) are still seen. */
const FEED_LOOKBACK_MS = 60_000;
/** Even without a change in the feed, an entry is re-read this often: a safety net, not the bound. */
const SAFETY_TTL_MS = 600_000;

/**
 * Resolves slugs for the redirect path from an in-process LRU cache; the database is asked only on a
 * miss. Edits made on this instance evict the entry at once. Edits made elsewhere reach this instance
 * through the change feed (link_changes), which it reads at most once per `ttlMs`, on the first
 * request that finds the read due: another instance's edit is served stale for at most that long,
 * and the cache never re-reads slugs that did not change (docs/decisions.md).
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
  /** The feed has been applied up to here (this instance's clock). */
  private syncedUpTo: number;
  private nextSyncAt: number;
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly links: LinkStore,
    private readonly now: Clock,
    private readonly options: { ttlMs: number; maxEntries: number; onSyncError?: (error: unknown) => void },
  ) {
    this.caching = options.ttlMs > 0;
    // Times run on the service's clock (an edge that tests replace), not on lru-cache's own
    // performance.now; ttlResolution 0 stops lru-cache from reusing a "now" read up to 1 ms earlier.
    this.cache = new LRUCache({ max: options.maxEntries, ttl: SAFETY_TTL_MS, ttlAutopurge: false, ttlResolution: 0, perf: { now } });
    this.syncedUpTo = now();
    this.nextSyncAt = this.syncedUpTo + options.ttlMs;
  }

  async resolve(slug: string): Promise<Resolution> {
    if (!isSlugShaped(slug)) return MISSING_LINK;
    if (this.now() >= this.nextSyncAt) await this.sync();
    return this.answer(this.cache.get(slug) ?? (await this.load(slug)));
  }

  /** The synchronous fast path: the answer from memory, or undefined when the database must be asked. */
  peek(slug: string): Resolution | undefined {
    if (this.now() >= this.nextSyncAt) return undefined;
    const entry = this.cache.get(slug);
    return entry && this.answer(entry);
  }

  private answer(entry: Entry): Resolution {
    if (entry.expiresAt !== null && entry.expiresAt <= this.now()) return EXPIRED;
    return entry.redirect ?? MISSING_LINK;
  }

  invalidate(slug: string): void {
    this.epoch++;
    this.cache.delete(slug);
  }

  /**
   * Applies the change feed since the last sync. One sync at a time; requests arriving meanwhile wait
   * for it. If the database cannot be read, the cache keeps serving and the next sync is tried one
   * TTL later with the same starting point, so no change is skipped.
   */
  private sync(): Promise<void> {
    this.syncing ??= (async () => {
      const started = this.now();
      try {
        if (this.caching && this.cache.size > 0) {
          for (const slug of await this.links.slugsChangedSince(this.syncedUpTo - FEED_LOOKBACK_MS)) this.invalidate(slug);
        }
        this.syncedUpTo = started;
      } catch (error) {
        this.options.onSyncError?.(error);
      } finally {
        this.nextSyncAt = started + this.options.ttlMs;
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }

  private async load(slug: string): Promise<Entry> {
    const epoch = this.epoch;
    const link = await this.links.bySlug(slug);
    const entry: Entry = link
      ? {
          redirect: link.status === 'active' ? Object.freeze({ kind: 'redirect', target: link.target, linkId: link.id, accountId: link.accountId }) : undefined,
          expiresAt: link.expiresAt,
        }
      : MISSING;
    if (this.caching && epoch === this.epoch) this.cache.set(slug, entry);
    return entry;
  }
}
