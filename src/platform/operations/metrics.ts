import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RecordingActivity } from '../../analytics/recorder.js';
import { isUnavailable } from '../database/sql-errors.js';
import type { RedirectCounts, RedirectOutcomes, RefusalCounts } from './counts.js';
import { isReady } from './health.js';
import { sendError } from '../http/error-handling.js';
import type { DatabaseWatch } from '../../limits/load-shedding.js';
import type { Database } from '../database/database.js';
import type { RequestLog, RequestObserver } from './request-log.js';
import { buildInfo, connectionGauges, requestDurations } from './service-metrics.js';

/** The redirect cache as /metrics shows it (links-setup.ts). */
export interface RedirectCacheState {
  hits: number;
  misses: number;
  syncFailures: number;
  entries: number;
  /** Since the last successful read of the change feed began. */
  syncAgeMs: number;
  /** PostgreSQL: whether change notices arrive now; undefined on SQLite, which has none. */
  notices: boolean | undefined;
}

/** What the request paths count in place; read at scrape time only. */
export interface MetricsSources {
  redirects: RedirectCounts;
  redirectCache: () => RedirectCacheState;
  refusals: RefusalCounts;
  database: DatabaseWatch;
  /** Where the API's rate-limit counters live (src/limits/redis-rate-limiter.ts). */
  limiter: { readonly shared: boolean };
}

const OUTCOMES: Array<[label: string, field: keyof RedirectOutcomes]> = [
  ['redirected', 'redirected'],
  ['not_found', 'notFound'],
  ['expired', 'expired'],
  ['rate_limited', 'rateLimited'],
  ['shed', 'shed'],
  ['failed', 'failed'],
];
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * prom-client's default metrics name three gauges `*_total`, which `promtool check metrics` refuses
 * (a `_total` is a counter's); their per-type gauges without the suffix stay and sum to the same.
 */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * The Prometheus metrics of one app, in a registry of its own (docs/decisions.md, "Health and
 * metrics"). Flushes are observed as the recorder reports them, about once a second; everything
 * the request paths count is read from plain fields in collect() callbacks, so no request calls
 * prom-client.
 */
export class Metrics {
  readonly registry = new Registry();
  private sources: MetricsSources | undefined;
  /** API requests answered 503 because of storage trouble (the onError hook installMetrics adds). */
  requestDatabaseErrors = 0;
  private readonly visitsRecorded: Counter;
  private readonly visitsDropped: Counter<'reason'>;
  private readonly flushDurations: Histogram<'outcome'>;
  private flushErrors = 0;
  /** Observes an API or website request (the request log tells it of each). */
  readonly requestAnswered: RequestObserver;

  constructor(database: Pick<Database, 'dialect' | 'connections'>) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
    buildInfo(registers, database.dialect);
    connectionGauges(registers, () => database.connections());
    this.requestAnswered = requestDurations(registers);
    this.visitsRecorded = new Counter({ name: 'shortlinks_visits_recorded_total', help: 'Visits written to the database.', registers });
    this.visitsDropped = new Counter({
      name: 'shortlinks_visits_dropped_total',
      help: 'Visits not recorded, written as gaps: refused (allowance or daily ceiling) or unavailable (buffer full, flush failing).',
      labelNames: ['reason'],
      registers,
    });
    this.flushDurations = new Histogram({
      name: 'shortlinks_visit_flush_duration_seconds',
      help: 'Duration of visit flushes (one transaction each, which also writes the daily counts), by outcome (ok, failed).',
      labelNames: ['outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.scraped(registers);
  }

  /** The request paths' counters, once they exist (buildApp makes them after the recording starts). */
  measure(sources: MetricsSources): void {
    this.sources = sources;
  }

  /** Passed to the recording (setUpAnalytics): never throws, whatever it is told. */
  readonly recordingActivity = (activity: RecordingActivity): void => {
    this.flushDurations.observe({ outcome: activity.ok ? 'ok' : 'failed' }, Math.max(0, activity.seconds));
    if (!activity.ok) this.flushErrors++;
    if (activity.recorded > 0) this.visitsRecorded.inc(activity.recorded);
    if (activity.refused > 0) this.visitsDropped.inc({ reason: 'refused' }, activity.refused);
    if (activity.dropped > 0) this.visitsDropped.inc({ reason: 'unavailable' }, activity.dropped);
  };

  /** Metrics read from the sources' plain fields when scraped. */
  private scraped(registers: Registry[]): void {
    const counter = (name: string, help: string, labelNames: string[], read: (counter: Counter<string>, s: MetricsSources) => void) => {
      const metric: Counter<string> = new Counter({
        name,
        help,
        labelNames,
        registers,
        collect: () => {
          metric.reset();
          if (this.sources !== undefined) read(metric, this.sources);
        },
      });
    };
    counter('shortlinks_redirects_total', 'Answers of the redirect paths, by path (s, q) and outcome.', ['kind', 'outcome'], (c, s) => {
      for (const kind of ['s', 'q'] as const) for (const [outcome, field] of OUTCOMES) c.inc({ kind, outcome }, s.redirects[kind][field]);
    });
    const both = (s: MetricsSources, field: 'rateLimited' | 'shed') => s.redirects.s[field] + s.redirects.q[field];
    counter('shortlinks_rate_limited_total', 'Requests refused with 429, by path (api, redirect).', ['path'], (c, s) => {
      c.inc({ path: 'api' }, s.refusals.rateLimited);
      c.inc({ path: 'redirect' }, both(s, 'rateLimited'));
    });
    counter('shortlinks_shed_total', 'Requests shed under load with 503, by path (api, redirect).', ['path'], (c, s) => {
      c.inc({ path: 'api' }, s.refusals.shed);
      c.inc({ path: 'redirect' }, both(s, 'shed'));
    });
    counter('shortlinks_database_errors_total', 'Database operations that failed, by operation.', ['operation'], (c, s) => {
      c.inc({ operation: 'probe' }, s.database.failures);
      c.inc({ operation: 'request' }, this.requestDatabaseErrors);
      c.inc({ operation: 'flush' }, this.flushErrors);
    });
    counter('shortlinks_redirect_cache_hits_total', 'Redirects answered from the redirect cache.', [], (c, s) => c.inc(s.redirectCache().hits));
    counter('shortlinks_redirect_cache_misses_total', 'Redirects that read the database (not cached, or re-read after a change).', [], (c, s) =>
      c.inc(s.redirectCache().misses),
    );
    counter('shortlinks_redirect_cache_sync_failures_total', 'Reads of the change feed that failed (the cache kept serving).', [], (c, s) =>
      c.inc(s.redirectCache().syncFailures),
    );
    const gauge = (name: string, help: string, read: (s: MetricsSources) => number) => {
      const metric: Gauge = new Gauge({
        name,
        help,
        registers,
        collect: () => {
          if (this.sources !== undefined) metric.set(read(this.sources));
        },
      });
    };
    gauge(
      'shortlinks_redirect_cache_sync_age_seconds',
      'Seconds since the last successful read of the change feed began (at most about half REDIRECT_CACHE_TTL_MS when healthy).',
      (s) => s.redirectCache().syncAgeMs / 1000,
    );
    gauge('shortlinks_redirect_cache_entries', 'Slugs held in the redirect cache.', (s) => s.redirectCache().entries);
    gauge(
      'shortlinks_redirect_cache_notices',
      '1 while change notices (PostgreSQL LISTEN) arrive; 0 while only the change feed is read, and always on SQLite, which has no notices.',
      (s) => {
        return s.redirectCache().notices === true ? 1 : 0;
      },
    );
    const ready: Gauge = new Gauge({
      name: 'shortlinks_ready',
      help: '1 while the background database probe succeeds (readiness), else 0.',
      registers,
      collect: () => ready.set(this.sources !== undefined && isReady(this.sources.database) ? 1 : 0),
    });
    const shared: Gauge = new Gauge({
      name: 'shortlinks_rate_limits_shared',
      help: '1 while rate limits count in Redis, shared by the edge location; 0 while they count in this instance only.',
      registers,
      collect: () => shared.set(this.sources?.limiter.shared ? 1 : 0),
    });
  }
}

/** Compares in constant time whatever the lengths: both sides are hashed first. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => crypto.createHash('sha256').update(value).digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/**
 * GET /metrics, only when METRICS_TOKEN is set (otherwise the route does not exist: 404 not_found),
 * and only for `Authorization: Bearer <token>` (else 401 api_key_invalid). Outside /api/v1: a
 * scraper is neither rate-limited nor shed. Returns undefined when metrics are off.
 */
export function installMetrics(app: FastifyInstance, token: string | undefined, observed: { database: Database; requests: RequestLog }): Metrics | undefined {
  if (token === undefined) return undefined;
  const metrics = new Metrics(observed.database);
  observed.requests.observeWith(metrics.requestAnswered);
  // Storage errors of requests, seen once Fastify's error handler has answered them.
  app.addHook('onError', async (_request, _reply, error) => {
    if (isUnavailable(error)) metrics.requestDatabaseErrors++;
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const header = request.headers.authorization;
    if (typeof header !== 'string' || !header.startsWith('Bearer ') || !sameSecret(header.slice(7), token)) {
      return sendError(reply, 'api_key_invalid');
    }
    const text = await metrics.registry.metrics();
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(text);
  });
  return metrics;
}
