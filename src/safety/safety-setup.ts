import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AccountService } from '../accounts/account-service.js';
import type { Mailer } from '../accounts/mailer.js';
import type { RateLimiter } from '../limits/redis-rate-limiter.js';
import type { ModerationService } from '../links/moderation-service.js';
import type { LinkRecord, LinkStore } from '../links/ports.js';
import type { LinkResponse } from '../links/link-schemas.js';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/database/database.js';
import type { Clock } from '../platform/time.js';
import { KyselyAuditLog } from './audit-log.js';
import { KyselyBlocklist } from './blocklist.js';
import { destinationCheck } from './destinations.js';
import { OperatorService } from './operator-service.js';
import { KyselyOperators } from './operators.js';
import { KyselyReportStore } from './report-store.js';
import { Reports } from './reports.js';
import { safetyRoutes } from './safety-routes.js';

export interface SafetyDeps {
  config: Config;
  database: Database;
  networkSecret: string;
  now: Clock;
  log: FastifyBaseLogger;
  version: string;
}

/** What the routes need from other capabilities, which exist only once links and accounts are set up. */
export interface SafetyRouteDeps {
  links: Pick<LinkStore, 'byId' | 'bySlug' | 'list'>;
  moderation: ModerationService;
  accounts: Pick<AccountService, 'grantCredits' | 'listKeys'>;
  mailer: Mailer;
  limiter: RateLimiter;
  render: (link: LinkRecord) => LinkResponse;
  /** A link's visits of its last days, every request counted (bots too): what an operator weighs. */
  recentVisits: (link: LinkRecord) => Promise<Array<{ day: string; visits: number }>>;
}

/**
 * Trust and safety (docs/adr/0080): where links may point (the blocklist, Safe Browsing), which the
 * link service asks at creation and edit; reports from anyone; the operator console and its audit
 * log. Made before links, so the destination check can be handed to the link service.
 */
export function setUpSafety(app: FastifyInstance, deps: SafetyDeps) {
  const { config, database, now, log } = deps;
  const blocklist = new KyselyBlocklist(database.db);
  const checkDestination = destinationCheck({
    blocklist,
    safeBrowsing: config.safeBrowsing && { ...config.safeBrowsing, clientVersion: deps.version },
    log,
  });
  const operatorStore = new KyselyOperators(database.db);
  const reportStore = new KyselyReportStore(database.db);
  const routes = async (api: FastifyInstance, route: SafetyRouteDeps) => {
    const reports = new Reports({
      store: reportStore,
      links: route.links,
      limiter: route.limiter,
      perNetworkPerMinute: config.reportsPerMinute,
      edgeLocation: config.edgeLocation,
      networkSecret: deps.networkSecret,
      publicUrl: config.publicUrl,
      operatorEmails: () => operatorStore.operatorEmails(),
      mail: (mail) => void route.mailer.send(mail).catch((error: unknown) => log.warn({ err: error }, 'a report could not be mailed to an operator')),
      now,
    });
    const operators = new OperatorService({
      operators: operatorStore,
      reports: reportStore,
      blocklist,
      audit: new KyselyAuditLog(database.db),
      moderation: route.moderation,
      accounts: route.accounts,
      links: route.links,
      recentVisits: route.recentVisits,
      now,
    });
    await api.register(safetyRoutes, { reports, operators, render: route.render });
  };
  return { checkDestination, routes };
}
