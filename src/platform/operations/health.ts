import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendError, UNAVAILABLE_RETRY_SECONDS } from '../http/error-handling.js';
import type { DatabaseWatch } from '../../limits/load-shedding.js';
import { VERSION } from '../version.js';

/**
 * How old the last successful ping may be (the watch pings once a second): a ping that hangs, behind
 * a full pool or a held lock, makes the instance unready within a few seconds.
 */
export const READY_STALE_MS = 5_000;

const OK = Object.freeze({ status: 'ok', version: VERSION });

/** Apps whose shutdown has begun: they still serve every request, but no longer say they are ready. */
const leaving = new WeakSet<FastifyInstance>();

/**
 * Takes the instance out of rotation (server.ts, on SIGTERM or SIGINT): readiness answers 503 from now
 * on, so that load balancers stop sending it requests before its listener closes.
 */
export function leaveRotation(app: FastifyInstance): void {
  leaving.add(app);
}

/** Whether the last ping that ended succeeded, recently enough. */
export function isReady(watch: DatabaseWatch, at = performance.now()): boolean {
  return watch.ok && at - watch.okAt <= READY_STALE_MS;
}

/**
 * Liveness and readiness, as orchestrators probe them (docs/decisions.md, "Health and metrics").
 * Neither does any I/O: liveness answers while the event loop runs; readiness reads the background
 * ping's last result.
 * `/health` is readiness, for the tools that know only it. Outside /api/v1: never rate-limited or shed.
 * Both carry the version, so a rolling deploy can be followed instance by instance.
 */
export function healthRoutes(app: FastifyInstance, watch: DatabaseWatch): void {
  const options = { schema: { hide: true } };
  const live = async () => OK;
  const ready = async (_request: unknown, reply: FastifyReply) =>
    !leaving.has(app) && isReady(watch) ? OK : sendError(reply, 'links_unavailable', UNAVAILABLE_RETRY_SECONDS);
  for (const path of ['/health/live', '/livez']) app.get(path, options, live);
  for (const path of ['/health/ready', '/readyz', '/health']) app.get(path, options, ready);
}
