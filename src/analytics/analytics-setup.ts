import type { FastifyInstance } from 'fastify';
import type { Config } from '../platform/config.js';
import { VisitRecorder } from './recorder.js';
import type { RecordingActivity } from './recording-loop.js';
import { StatsService } from './stats-service.js';
import type { LinkService } from '../links/link-service.js';
import type { Clock } from '../platform/time.js';
import { KyselyAnalyticsStore } from './store/analytics-store.js';
import type { Database } from '../platform/database/database.js';
import { recordingBackend } from './store/recording-thread.js';
import { countryOf } from './country.js';
import type { VisitSink } from '../links/fast-redirect.js';
import { visitHeaders } from './visit-headers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Exposed so tests (and shutdown) can flush deterministically instead of sleeping. */
    visitRecorder: VisitRecorder;
  }
}

/**
 * Wires visit recording and stats: the recorder starts flushing now, and the app's onClose runs its
 * final flush before src/server.ts closes the database.
 */
export async function setUpAnalytics(
  app: FastifyInstance,
  deps: { config: Config; database: Database; links: LinkService; now: Clock; onActivity?: (activity: RecordingActivity) => void },
) {
  const { config, database, now } = deps;
  const settings = config.analytics;
  const onError = (error: unknown) => app.log.warn({ err: error }, 'visit recording: flush failed, will retry');
  const loop = {
    limits: config.limits,
    flushIntervalMs: settings.flushIntervalMs,
    rollupIntervalMs: settings.rollupIntervalMs,
    heartbeatIntervalMs: settings.heartbeatIntervalMs,
  };
  const recorder = new VisitRecorder({
    backend: recordingBackend(database, loop, onError, deps.onActivity),
    now,
    flushIntervalMs: settings.flushIntervalMs,
    bufferMaxVisits: settings.bufferMaxVisits,
    onError,
  });
  recorder.start();
  app.decorate('visitRecorder', recorder);
  app.addHook('onClose', async () => recorder.stop());
  const statsStore = new KyselyAnalyticsStore(database, config.limits.freeVisitsPerMonth);
  const country = countryOf(settings.countryHeader);
  const visits: VisitSink = (rawHeaders, address, link, source, time) => {
    const headers = visitHeaders(rawHeaders, settings.countryHeader);
    recorder.record(link, source, headers.userAgent, headers.referer, country(headers.country, address), time);
  };
  return { visits, stats: new StatsService({ links: deps.links, store: statsStore, now }), recording: statsStore };
}
