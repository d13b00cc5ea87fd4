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

  constructor(
    private readonly links: LinkStore,
    private readonly now: Clock,
    options: { ttlMs: number; maxEntries: number },
  ) {
    this.cache = new LRUCache({ max: options.maxEntries, ttl: Math.max(1, options.ttlMs), ttlAutopurge: false });
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
    this.cache.delete(slug);
  }

  private async load(slug: string): Promise<Entry> {
    const link = await this.links.bySlug(slug);
    const entry: Entry = link
      ? { linkId: link.id, accountId: link.accountId, target: link.target, active: link.status === 'active', expiresAt: link.expiresAt }
      : MISSING;
    this.cache.set(slug, entry);
    return entry;
  }
}
