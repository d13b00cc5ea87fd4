import type { FastifyInstance } from 'fastify';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/database/database.js';
import type { EventBus } from '../platform/events.js';
import type { Clock } from '../platform/time.js';
import type { LinkService } from '../links/link-service.js';
import type { VisitSink } from '../links/fast-redirect.js';
import { VisitClassifier } from './classify.js';
import { countryOf } from './country.js';
import { VisitRecorder, type RecordingActivity } from './recorder.js';
import { StatsService } from './stats-service.js';
import { KyselyRecordingStore } from './store/recording-store.js';
import { KyselyStatsStore } from './store/stats-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Exposed so tests (and shutdown) can flush deterministically instead of sleeping. */
    visitRecorder: VisitRecorder;
  }
}

/**
 * Wires visit recording and stats: the recorder starts flushing now, each flush that records visits
 * announces them as `visits.recorded`, and the app's onClose runs the final flush before
 * src/server.ts closes the database.
 */
export async function setUpAnalytics(
  app: FastifyInstance,
  deps: { config: Config; database: Database; links: LinkService; events: EventBus; now: Clock; onActivity?: (activity: RecordingActivity) => void },
) {
  const { config, database, now } = deps;
  const settings = config.analytics;
  const recorder = new VisitRecorder({
    store: new KyselyRecordingStore(database),
    now,
    limits: config.limits,
    flushIntervalMs: settings.flushIntervalMs,
    heartbeatIntervalMs: settings.heartbeatIntervalMs,
    bufferMaxVisits: settings.bufferMaxVisits,
    onError: (error) => app.log.warn({ err: error }, 'visit recording: flush failed, will retry'),
    onActivity: deps.onActivity,
    onRecorded: (event) => deps.events.emit('visits.recorded', event),
  });
  recorder.start();
  app.decorate('visitRecorder', recorder);
  app.addHook('onClose', async () => recorder.stop());
  const statsStore = new KyselyStatsStore(database, config.limits.freeVisitsPerMonth);
  const classifier = new VisitClassifier();
  const country = countryOf(settings.countryHeader);
  const countryHeader = settings.countryHeader;
  const visits: VisitSink = (headers, address, link, source, time) => {
    const edge = countryHeader === undefined ? undefined : headers[countryHeader];
    const visitor = classifier.userAgent(headers['user-agent']);
    const referrer = classifier.referrer(headers.referer);
    recorder.record(link, source, country(typeof edge === 'string' ? edge : undefined, address), visitor, referrer, time);
  };
  return { visits, stats: new StatsService({ links: deps.links, store: statsStore, now }), recording: statsStore };
}
