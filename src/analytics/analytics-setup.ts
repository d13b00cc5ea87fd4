import type { FastifyInstance } from 'fastify';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/database/database.js';
import type { Clock } from '../platform/time.js';
import type { LinkService } from '../links/link-service.js';
import type { VisitSink } from '../links/fast-redirect.js';
import type { VisitAllowance } from '../billing/ports.js';
import { VisitClassifier } from './classify.js';
import { countryOf } from './country.js';
import { VisitRecorder, type RecordingActivity } from './recorder.js';
import { StatsService } from './stats-service.js';
import { statsRoutes } from './stats-routes.js';
import { KyselyRecordingStore } from './store/recording-store.js';
import { KyselyStatsStore } from './store/stats-store.js';
import { VisitorCodes } from './visitors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Exposed so tests (and shutdown) can flush deterministically instead of sleeping. */
    visitRecorder: VisitRecorder;
  }
}

export interface AnalyticsDeps {
  config: Config;
  database: Database;
  links: LinkService;
  allowance: VisitAllowance;
  now: Clock;
  onActivity?: (activity: RecordingActivity) => void;
  /** The deployment's secret, from which each UTC day's salt of unique visitors is derived (visitors.ts). */
  networkSecret: string;
}

/** `visits` is the redirect's sink. The app's onClose runs the recorder's final flush before src/server.ts closes the database. */
export function setUpAnalytics(app: FastifyInstance, deps: AnalyticsDeps) {
  const { config, database, now } = deps;
  const settings = config.analytics;
  const recorder = new VisitRecorder({
    store: new KyselyRecordingStore(database, deps.allowance),
    now,
    limits: config.limits,
    flushIntervalMs: settings.flushIntervalMs,
    heartbeatIntervalMs: settings.heartbeatIntervalMs,
    bufferMaxVisits: settings.bufferMaxVisits,
    onError: (error) => app.log.warn({ err: error }, 'visit recording: flush failed, will retry'),
    onActivity: deps.onActivity,
  });
  recorder.start();
  app.decorate('visitRecorder', recorder);
  app.addHook('onClose', async () => recorder.stop());
  const statsStore = new KyselyStatsStore(database);
  const classifier = new VisitClassifier();
  const codes = new VisitorCodes(deps.networkSecret);
  const country = countryOf(settings.countryHeader);
  const countryHeader = settings.countryHeader;
  const visits: VisitSink = (headers, address, link, source, time) => {
    const edge = countryHeader === undefined ? undefined : headers[countryHeader];
    const userAgent = headers['user-agent'] ?? '';
    recorder.record({
      link,
      time,
      source,
      agent: classifier.userAgent(userAgent),
      country: country(typeof edge === 'string' ? edge : undefined, address),
      referrer: classifier.referrer(headers.referer),
      visitor: codes.code(address, userAgent, time),
    });
  };
  const stats = new StatsService({ links: deps.links, store: statsStore, now });
  const routes = (api: FastifyInstance) => api.register(statsRoutes, { stats });
  return { visits, routes, stats };
}
