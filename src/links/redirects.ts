import type { LinkRef } from '../analytics/link-table.js';
import { ClockCache } from './clock-cache.js';
import type { LinkStore } from './ports.js';
import { isSlugShaped } from './slugs.js';
import type { Clock } from '../platform/time.js';

export type Resolution =
  | {
      kind: 'redirect';
      target: string;
      link: LinkRef;
    }
  | { kind: 'expired' }
  | { kind: 'missing' };

/**
 * A cached slug, in one object: the answer (an active link's entry is its own Resolution, built once,
 * so a cache hit allocates nothing), the link's reference for the recorder (link-table.ts: the entry
 * is its own LinkRef), the cache's mark (clock-cache.ts) and the tick it must be re-read at. A cache
 * hit fetched four objects from memory before (the cache's wrapper, the entry, its boxed timestamp,
 * the answer), each a likely cache miss among ten thousand links: most of the redirect path's own
 * time in `perf annotate` (docs/benchmarks.md, "Sixth session").
 */
class Entry implements LinkRef {
  used = false;
  table = 0;
  index = -1;
  readonly link: LinkRef = this;

  constructor(
    /** 'redirect' for an active link; 'missing' for no such slug, or a link that is not active. */
    readonly kind: 'redirect' | 'missing',
    readonly target: string,
    readonly id: string,
    readonly accountId: string | null,
    readonly expiresAt: number | null,
    /** The resolver's tick from which on the entry is re-read, even without a change in the feed. */
    readonly dueTick: number,
  ) {}
}

const EXPIRED: Resolution = Object.freeze({ kind: 'expired' });
const MISSING_LINK: Resolution = Object.freeze({ kind: 'missing' });

/** Changes whose rows commit late (long transactions, clock skew between instances) are still seen. */
const FEED_LOOKBACK_MS = 60_000;
/**
 * Even without a change in the feed, an entry is re-read 10 to 15 minutes after it was read: a safety
 * net, not the bound. Spread at random, so that the slugs read together (all of them, after a start
 * under load) are not all re-read in the same second. Entries note when in ticks of the resolver's
 * clock, a small integer a redirect compares without fetching a boxed timestamp from memory.
 */
const SAFETY_MS = 600_000;
const SAFETY_SPREAD_MS = 300_000;
const TICK_MS = 10_000;

/**
 * Resolves slugs for the redirect path from an in-process cache (clock-cache.ts); the database is
 * asked only on a miss. Edits made on this instance evict the entry at once. Edits made elsewhere reach this instance
 * through the change feed (link_changes), which it reads at most once per `ttlMs`, on the first
 * request that finds the read due: another instance's edit is served stale for at most that long,
 * and the cache never re-reads slugs that did not change (docs/decisions.md).
 */
export class RedirectResolver {
  private readonly cache: ClockCache<string, Entry>;
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
  private tick = 0;
  private nextTickAt: number;
  private readonly random: () => number;

  constructor(
    private readonly links: LinkStore,
    private readonly now: Clock,
    private readonly options: { ttlMs: number; maxEntries: number; onSyncError?: (error: unknown) => void; random?: () => number },
  ) {
    this.random = options.random ?? Math.random;
    this.caching = options.ttlMs > 0;
    // The safety net is kept in the entries, on the service's clock. (lru-cache, used here before, kept
    // TTLs in arrays of maxEntries allocated through a subclass of Array, and V8 answers an Array
    // constructor call that large by dropping its "Array constructor is intact" assumption for the
    // whole process: Node's own HTTP and stream code then ran deoptimized; docs/decisions.md. A test
    // guards the assumption.)
    this.cache = new ClockCache(options.maxEntries);
    this.syncedUpTo = now();
    this.nextSyncAt = this.syncedUpTo + options.ttlMs;
    this.nextTickAt = this.syncedUpTo + TICK_MS;
  }

  async resolve(slug: string): Promise<Resolution> {
    if (!isSlugShaped(slug)) return MISSING_LINK;
    if (this.now() >= this.nextSyncAt) await this.sync();
    const entry = this.cached(slug, this.now()) ?? (await this.load(slug));
    return this.answer(entry, this.now());
  }

  /** The synchronous fast path: the answer at `now` from memory, or undefined when the database must be asked. */
  peek(slug: string, now: number): Resolution | undefined {
    if (now >= this.nextSyncAt) return undefined;
    const entry = this.cached(slug, now);
    return entry && this.answer(entry, now);
  }

  private cached(slug: string, now: number): Entry | undefined {
    const entry = this.cache.get(slug);
    return entry !== undefined && entry.dueTick > this.tickAt(now) ? entry : undefined;
  }

  /** The resolver's clock in ticks: one more every TICK_MS. */
  private tickAt(now: number): number {
    if (now >= this.nextTickAt) {
      const passed = Math.floor((now - this.nextTickAt) / TICK_MS) + 1;
      this.tick += passed;
      this.nextTickAt += passed * TICK_MS;
    }
    return this.tick;
  }

  private answer(entry: Entry, now: number): Resolution {
    if (entry.expiresAt !== null && entry.expiresAt <= now) return EXPIRED;
    return entry.kind === 'redirect' ? (entry as Entry & { kind: 'redirect' }) : MISSING_LINK;
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
    const dueTick = this.tickAt(this.now()) + Math.round((SAFETY_MS + this.random() * SAFETY_SPREAD_MS) / TICK_MS);
    const link = await this.links.bySlug(slug);
    const entry = link
      ? new Entry(link.status === 'active' ? 'redirect' : 'missing', link.target, link.id, link.accountId, link.expiresAt, dueTick)
      : // Cached "no such slug": a scan of random slugs must not turn into a database query each.
        new Entry('missing', '', '', null, null, dueTick);
    if (this.caching && epoch === this.epoch) this.cache.set(slug, entry);
    return entry;
  }
}
