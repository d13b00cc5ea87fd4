import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendError, UNAVAILABLE_RETRY_SECONDS } from '../http/error-handling.js';
import type { DatabaseWatch } from '../../limits/load-shedding.js';

/**
 * How old the last successful ping may be (the watch pings once a second): a ping that hangs, behind
 * a full pool or a held lock, makes the instance unready within a few seconds.
 */
export const READY_STALE_MS = 5_000;

const OK = Object.freeze({ status: 'ok' });

/** Whether the last ping that ended succeeded, recently enough. */
export function isReady(watch: DatabaseWatch, at = performance.now()): boolean {
  return watch.ok && at - watch.okAt <= READY_STALE_MS;
}

/**
 * Liveness and readiness, as orchestrators probe them (docs/decisions.md, "Health and metrics").
 * Neither does any I/O: liveness answers while the event loop runs; readiness reads the background
 * ping's last result.
 * `/health` is readiness, for the tools that know only it. Outside /api/v1: never rate-limited or shed.
 */
export function healthRoutes(app: FastifyInstance, watch: DatabaseWatch): void {
  const options = { schema: { hide: true } };
  const live = async () => OK;
  const ready = async (_request: unknown, reply: FastifyReply) => (isReady(watch) ? OK : sendError(reply, 'links_unavailable', UNAVAILABLE_RETRY_SECONDS));
  for (const path of ['/health/live', '/livez']) app.get(path, options, live);
  for (const path of ['/health/ready', '/readyz', '/health']) app.get(path, options, ready);
}
