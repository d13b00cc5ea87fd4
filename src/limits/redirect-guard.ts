import type { ServerResponse } from 'node:http';
import type { Protection } from '../platform/config.js';
import { decision, GcraTable } from './gcra.js';
import { networkOf } from '../platform/network.js';
import { writeError } from '../platform/http/error-handling.js';
import { SHED_RETRY_SECONDS, type PressureProbe } from './load-shedding.js';

/**
 * Protects /s/ and /q/ without holding them to the API limits: a crowd scanning one poster behind one
 * carrier NAT must keep working, so the per-network ceiling is far higher, and it lives in memory only
 * (no Redis round trip on the hot path). The redirect path sheds last: only the event loop counts,
 * at its own higher threshold; database latency does not, since most redirects come from the cache.
 * It works on the raw response because redirects are answered before Fastify (src/links/fast-redirect.ts).
 */
export class RedirectGuard {
  private readonly table = new GcraTable();

  constructor(
    private readonly protection: Protection,
    private readonly pressure: PressureProbe,
  ) {}

  /** Answers the request itself (429 or 503) and returns true when the client at `address` must not be served at `now`. */
  refuse(address: string, res: ServerResponse, now: number): boolean {
    const { shedRedirectEventLoopDelayMs: shedAt, redirectFloodPerMinute: limit } = this.protection;
    if (shedAt > 0 && this.pressure().eventLoopDelayMs > shedAt) {
      writeError(res, 'links_unavailable', SHED_RETRY_SECONDS);
      return true;
    }
    // IPv4 (the common case) is its own network: skip parsing. IPv6 is folded to its /64.
    const backlog = this.table.take(address.includes(':') ? networkOf(address) : address, now, limit);
    if (backlog > 0) return false;
    writeError(res, 'rate_limited', Math.ceil(decision(false, -backlog, limit).retryAfterMs / 1000));
    return true;
  }
}
