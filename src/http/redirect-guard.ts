import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Protection } from '../config.js';
import { decision, GcraTable } from '../domain/gcra.js';
import { networkOf } from '../domain/network.js';
import type { Clock } from '../domain/time.js';
import { sendError } from './plugins/errors.js';
import { SHED_RETRY_SECONDS, type PressureProbe } from './plugins/load-shedding.js';

declare module 'fastify' {
  interface FastifyInstance {
    redirectGuard: RedirectGuard | undefined;
  }
}

/**
 * Protects /s/ and /q/ without holding them to the API limits: a crowd scanning one poster behind one
 * carrier NAT must keep working, so the per-network ceiling is far higher, and it lives in memory only
 * (no Redis round trip on the hot path). The redirect path sheds last: only the event loop counts,
 * at its own higher threshold; database latency does not, since most redirects come from the cache.
 */
export class RedirectGuard {
  private readonly table = new GcraTable();

  constructor(
    private readonly protection: Protection,
    private readonly now: Clock,
    private readonly pressure: PressureProbe,
  ) {}

  /** Answers the request itself (429 or 503) and returns true when it must not be served. */
  refuse(request: FastifyRequest, reply: FastifyReply): boolean {
    const { shedRedirectEventLoopDelayMs: shedAt, redirectFloodPerMinute: limit } = this.protection;
    if (shedAt > 0 && this.pressure().eventLoopDelayMs > shedAt) {
      void sendError(reply, 'links_unavailable', SHED_RETRY_SECONDS);
      return true;
    }
    // IPv4 (the common case) is its own network: skip parsing. IPv6 is folded to its /64.
    // request.ip is undefined once the client's socket is gone; such a request is not worth a 503.
    const ip = request.ip ?? '';
    const backlog = this.table.take(ip.includes(':') ? networkOf(ip) : ip, this.now(), limit);
    if (backlog > 0) return false;
    void sendError(reply, 'rate_limited', Math.ceil(decision(false, -backlog, limit).retryAfterMs / 1000));
    return true;
  }
}

export function installRedirectGuard(app: FastifyInstance, guard: RedirectGuard): void {
  app.decorate('redirectGuard', guard);
}

/** The one call at the top of the redirect handler; a no-op if no guard was installed. */
export function guardRedirect(request: FastifyRequest, reply: FastifyReply): boolean {
  return request.server.redirectGuard?.refuse(request, reply) ?? false;
}
