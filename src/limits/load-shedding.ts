import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { Protection } from '../platform/config.js';
import { ping, type Database } from '../platform/database/database.js';
import type { RefusalCounts } from '../platform/operations/counts.js';
import { sendError } from '../platform/http/error-handling.js';

/** How saturated this instance is right now. */
export interface PressureReading {
  /** Mean event-loop delay over the last sample interval. */
  eventLoopDelayMs: number;
  /** Latency of the last database ping, or how long the one still running has taken so far. */
  databaseLatencyMs: number;
}

/** Replaceable in tests (AppOptions.pressure) so shedding is tested by forcing it, not by timing. */
export type PressureProbe = () => PressureReading;

/** A shed request is told to come back soon: saturation is usually a burst, not an outage. */
export const SHED_RETRY_SECONDS = 2;

const SAMPLE_INTERVAL_MS = 1000;
const RESOLUTION_MS = 10;

/**
 * The database as a ping once a second sees it: load shedding reads its latency, readiness (health.ts)
 * its outcome and age, so requests never ping the database themselves.
 */
export interface DatabaseWatch {
  /** Latency of the last ping (Infinity when it failed), or how long the one still running has taken so far. */
  latencyMs(): number;
  /** performance.now() when the last successful ping ended (-Infinity before the first). */
  readonly okAt: number;
  /** Whether the last ping that ended succeeded. */
  readonly ok: boolean;
  /** Pings that failed since start (metrics.ts). */
  readonly failures: number;
  /** Settles when the first ping ends, which starts at once: buildApp waits, so readiness is known before listening. */
  readonly first: Promise<void>;
}

/**
 * Pings the database once a second, at most one ping at a time. A ping that queues behind a saturated
 * pool (PostgreSQL) or a busy connection (SQLite) is counted while it is still waiting, so saturation
 * shows before the ping returns. A failed ping is recorded, never thrown: the timer is unref'd and
 * stops when the app closes.
 */
export function watchDatabase(app: FastifyInstance, database: Database): DatabaseWatch {
  let lastLatency = 0;
  let pingStarted: number | undefined;
  const watch = {
    okAt: Number.NEGATIVE_INFINITY,
    ok: false,
    failures: 0,
    first: Promise.resolve(),
    latencyMs: () => (pingStarted === undefined ? lastLatency : Math.max(lastLatency, performance.now() - pingStarted)),
  };
  const sample = (): Promise<void> => {
    if (pingStarted !== undefined) return Promise.resolve();
    const started = (pingStarted = performance.now());
    return ping(database)
      .then(
        () => {
          watch.okAt = performance.now();
          watch.ok = true;
          lastLatency = watch.okAt - started;
        },
        () => {
          watch.ok = false;
          watch.failures++;
          lastLatency = Number.POSITIVE_INFINITY;
        },
      )
      .finally(() => (pingStarted = undefined));
  };
  watch.first = sample();
  const timer = setInterval(() => void sample(), SAMPLE_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  return watch;
}

/**
 * Samples the event loop once a second, and reads the database's latency from `watch`. We measure
 * rather than use @fastify/under-pressure's hook because it has one set of thresholds and runs on
 * every route, including the redirect hot path; here the API and the redirect path shed at different
 * levels. A failed ping reads as saturated: API requests would only queue until the driver times out.
 */
export function watchPressure(app: FastifyInstance, database: Database, watch = watchDatabase(app, database)): PressureProbe {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  // One object, updated in place: the redirect guard reads it on every visit without allocating.
  const reading: PressureReading = { eventLoopDelayMs: 0, databaseLatencyMs: 0 };
  const timer = setInterval(() => {
    reading.eventLoopDelayMs = Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS) || 0;
    histogram.reset();
  }, SAMPLE_INTERVAL_MS);
  timer.unref();
  // What the loop did before the server listened was its own start (loading modules, building the
  // app), not load: a slow start must not make a new instance refuse its first
  // second of traffic (seen in CI: two servers started at once, one shed every API request).
  app.addHook('onListen', async () => {
    histogram.reset();
    reading.eventLoopDelayMs = 0;
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    histogram.disable();
  });
  return () => {
    reading.databaseLatencyMs = watch.latencyMs();
    return reading;
  };
}

/** True when the API should refuse new work now (thresholds of 0 are off). */
export function apiSaturated(reading: PressureReading, protection: Protection): boolean {
  const { shedEventLoopDelayMs: loop, shedDatabaseLatencyMs: db } = protection;
  return (loop > 0 && reading.eventLoopDelayMs > loop) || (db > 0 && reading.databaseLatencyMs > db);
}

/**
 * The API sheds first: an onRequest hook of the /api/v1 scope, installed before the rate limits so a
 * shed request costs no counter round trip. The health endpoints are outside the scope and keep answering.
 */
export function installLoadShedding(api: FastifyInstance, probe: PressureProbe, protection: Protection, refusals?: RefusalCounts): void {
  // No log line per shed request: logging is work, and shedding happens exactly when work must stop.
  api.addHook('onRequest', async (_request, reply) => {
    if (!apiSaturated(probe(), protection)) return;
    if (refusals !== undefined) refusals.shed++;
    return sendError(reply, 'links_unavailable', SHED_RETRY_SECONDS);
  });
}
