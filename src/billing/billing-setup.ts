import type { FastifyInstance } from 'fastify';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/database/database.js';
import type { IdempotencyGuard } from '../platform/idempotency/idempotency-guard.js';
import type { Clock } from '../platform/time.js';
import { BillingService, PackService } from './billing-service.js';
import { KyselyCreditHistory } from './credit-history.js';
import type { KyselyCreditStore } from './credit-store.js';
import { KyselyPackStore } from './pack-store.js';
import { KyselyUsageStore } from './usage-store.js';
import { KyselyVisitAllowance } from './visit-allowance.js';

export interface BillingDeps {
  config: Config;
  database: Database;
  /** Shared with links, whose extra links reserve their price in it. */
  credits: KyselyCreditStore;
  idempotency: IdempotencyGuard;
  networkSecret: string;
  now: Clock;
}

/**
 * Billing: usage, quotes and capacity packs for the API; packs and the credit history for the
 * website; the visit allowance that visit recording takes from. Reservations a crashed request left
 * behind are released once they expire, at start and every 15 s.
 */
export async function setUpBilling(app: FastifyInstance, deps: BillingDeps) {
  const { config, database, credits, now } = deps;
  const packStore = new KyselyPackStore(database.db);
  const service = new BillingService({
    credits,
    packs: packStore,
    usage: new KyselyUsageStore(database.db),
    idempotency: deps.idempotency,
    limits: config.limits,
    networkSecret: deps.networkSecret,
    now,
  });
  await credits.releaseExpired(now());
  const release = setInterval(() => void credits.releaseExpired(now()).catch(() => {}), 15_000);
  release.unref();
  app.addHook('onClose', async () => clearInterval(release));
  return {
    service,
    packs: new PackService({ packs: packStore, now }),
    history: new KyselyCreditHistory(database.db),
    visitAllowance: new KyselyVisitAllowance(database),
  };
}
