import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { CreditStore } from '../billing/ports.js';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/database/database.js';
import { LINK_CHANGES_CHANNEL } from '../platform/database/notices.js';
import type { RedirectCacheState } from '../platform/operations/metrics.js';
import type { EventBus, LinkEvent } from '../platform/events.js';
import type { IdempotencyGuard } from '../platform/idempotency/idempotency-guard.js';
import { days, type Clock } from '../platform/time.js';
import { purgeLinkChangesBefore } from './link-changes.js';
import { toLinkResponse } from './link-response.js';
import { LinkService } from './link-service.js';
import { ModerationService } from './moderation-service.js';
import { KyselyModerationStore } from './moderation-store.js';
import { KyselyLinkStore } from './link-store.js';
import type { LinkRecord } from './ports.js';
import { RedirectResolver } from './redirects.js';
import type { RandomBytes } from './slugs.js';
import { dnsResolver } from './targets.js';
import { previewPage } from './preview.js';
import { isSlugShaped } from './slugs.js';

export interface LinksDeps {
  config: Config;
  database: Database;
  /** Billing's credit store: an extra link reserves its price there. */
  credits: CreditStore;
  idempotency: IdempotencyGuard;
  networkSecret: string;
  now: Clock;
  randomBytes: RandomBytes;
  events: EventBus;
  log: FastifyBaseLogger;
  /** Trust and safety's check of where a link may point (src/safety/destinations.ts). */
  checkDestination: (target: string) => Promise<void>;
}

/**
 * Links and their redirects: the link service, and the redirect resolver whose cache is kept in step
 * with every change (docs/adr/0014). Changes made here evict at once (link.created, link.changed);
 * on PostgreSQL, changes made by other instances or the CLI arrive by NOTIFY well under a second; the
 * change feed, read every half TTL, is the bound for everything else. Feed rows older than a day go.
 */
export function setUpLinks(app: FastifyInstance, deps: LinksDeps) {
  const { config, database, now, log } = deps;
  const store = new KyselyLinkStore(database.db);
  const service = new LinkService({
    links: store,
    credits: deps.credits,
    idempotency: deps.idempotency,
    limits: config.limits,
    publicUrl: config.publicUrl,
    publicHostnames: config.publicHostnames,
    resolveHost: dnsResolver(),
    networkSecret: deps.networkSecret,
    now,
    randomBytes: deps.randomBytes,
    events: deps.events,
    checkDestination: deps.checkDestination,
  });
  const moderation = new ModerationService({ store: new KyselyModerationStore(database.db), now, events: deps.events });
  // Its own reads: a redirect that misses the cache must not wait for a write transaction.
  const readStore = new KyselyLinkStore(database.reads);
  const redirects = new RedirectResolver(readStore, now, {
    ttlMs: config.redirectCacheTtlMs,
    maxEntries: config.redirectCacheMaxEntries,
    onSyncError: (error) => log.warn({ err: error }, 'redirect cache could not read the change feed; serving from memory'),
  });
  const forget = ({ slug }: LinkEvent) => redirects.invalidate(slug);
  deps.events.on('link.created', forget);
  deps.events.on('link.changed', forget);
  redirects.start();
  const notices =
    config.redirectCacheTtlMs > 0
      ? database.listen?.(LINK_CHANGES_CHANNEL, {
          notice: (slug) => redirects.invalidate(slug),
          // Whatever was announced while nobody listened is in the feed: read it now.
          listening: () => void redirects.sync(),
          lost: (error) => log.warn({ err: error }, 'redirect cache lost its change notices; reading the change feed until they are back'),
        })
      : undefined;
  const purge = setInterval(() => void purgeLinkChangesBefore(database.db, now() - days(1)).catch(() => {}), 3_600_000);
  purge.unref();
  app.addHook('onClose', async () => {
    clearInterval(purge);
    redirects.stop();
    await notices?.close();
  });
  const render = (link: LinkRecord) => toLinkResponse(link, config.publicUrl);
  const cacheState = (): RedirectCacheState => ({
    ...redirects.counts,
    entries: redirects.size,
    syncAgeMs: redirects.syncAge(now()),
    notices: notices?.listening,
  });
  const preview = async (slug: string, source: 's' | 'q') => {
    const link = isSlugShaped(slug) ? await readStore.bySlug(slug) : undefined;
    return { found: link !== undefined, html: previewPage(link, `${config.publicUrl}/${source}/${slug}`, now()) };
  };
  return { service, store, moderation, redirects, render, cacheState, preview };
}
