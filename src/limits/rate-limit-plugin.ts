import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Limits } from '../platform/config.js';
import { WINDOW_MS, type RateDecision } from './gcra.js';
import { networkHash, networkOf } from '../platform/network.js';
import type { Clock } from '../platform/time.js';
import type { RateLimiter } from './redis-rate-limiter.js';
import type { RefusalCounts } from '../platform/operations/counts.js';
import { sendError } from '../platform/http/error-handling.js';
import { GENERAL, noteConditions } from '../platform/http/openapi-responses.js';
import { accountOf } from '../platform/auth/principal.js';
import { SESSION_COOKIE } from '../platform/auth/session-resolver.js';
import { TRIAL_TOKEN_HEADER } from '../platform/http/headers.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Decisions already taken for this request, so every answer carries all its policies. */
    rateLimits: Array<[policy: string, decision: RateDecision]> | null;
  }
  interface FastifyContextConfig {
    /** false: the route is not counted (static documents such as the OpenAPI description). */
    rateLimit?: boolean;
  }
}

export interface RateLimitOptions {
  limiter: RateLimiter;
  limits: Limits;
  /** Requests per minute of the website's session traffic, per network and per account. */
  website: { perIp: number; perAccount: number };
  edgeLocation: string;
  /** Networks are keyed by their HMAC, so Redis never holds a client address. */
  networkSecret: string;
  now: Clock;
  /** Where refusals are counted for /metrics. */
  refusals?: RefusalCounts;
}

/**
 * API.md part 8 on every /api/v1 route: per client network before anything else (no database work
 * for a caller already over its limit), then per account once auth has named the key's account.
 * Counters are per edge location. Install it before installAuth: both network check and
 * authentication run onRequest, in registration order; the account check runs at preValidation.
 *
 * The website's own traffic (a session cookie and no other credential) is counted apart, against the
 * website's limits: one page view is several API calls, and API.md's limits are for programs
 * (docs/adr/0066-website-rate-limits.md).
 */
export function installRateLimits(api: FastifyInstance, options: RateLimitOptions): void {
  const { limiter, limits, website, edgeLocation, networkSecret, now, refusals } = options;
  api.decorateRequest('rateLimits', null);
  api.addHook('onRoute', (route) => {
    if (route.config?.rateLimit !== false) noteConditions(route, { rate_limited: GENERAL.rate_limited });
  });

  api.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.rateLimit === false) return;
    const network = networkHash(networkSecret, networkOf(request.ip));
    const [prefix, limit] = fromWebsite(request) ? ['web:net', website.perIp] : ['net', limits.rateLimitPerIp];
    const result = await limiter.check(`rl:${edgeLocation}:${prefix}:${network}`, limit, now());
    return apply(request, reply, 'network', result, refusals);
  });

  api.addHook('preValidation', async (request, reply) => {
    const accountId = request.principal && accountOf(request.principal);
    if (request.routeOptions.config.rateLimit === false || accountId === undefined) return;
    const [prefix, limit] = request.principal?.kind === 'session' ? ['web:acct', website.perAccount] : ['acct', limits.rateLimitPerAccount];
    const result = await limiter.check(`rl:${edgeLocation}:${prefix}:${accountId}`, limit, now());
    return apply(request, reply, 'account', result, refusals);
  });
}

/**
 * A request the website makes: its session cookie and no other credential. A forged cookie gains only
 * the website's per-network limit, and the session lookup it costs is one indexed read.
 */
function fromWebsite(request: FastifyRequest): boolean {
  const { cookie, authorization } = request.headers;
  return (
    authorization === undefined &&
    request.headers[TRIAL_TOKEN_HEADER.toLowerCase()] === undefined &&
    cookie !== undefined &&
    cookie.includes(`${SESSION_COOKIE}=`)
  );
}

function apply(
  request: FastifyRequest,
  reply: FastifyReply,
  policy: string,
  result: RateDecision,
  refusals: RefusalCounts | undefined,
): FastifyReply | undefined {
  request.rateLimits = [...(request.rateLimits ?? []), [policy, result]];
  reply.header('ratelimit-policy', rateLimitPolicy(request.rateLimits));
  reply.header('ratelimit', rateLimit(request.rateLimits));
  if (result.allowed) return undefined;
  if (refusals !== undefined) refusals.rateLimited++;
  return sendError(reply, 'rate_limited', Math.ceil(result.retryAfterMs / 1000));
}

/** IETF draft-ietf-httpapi-ratelimit-headers: `"name";q=<quota>;w=<window seconds>`, one item per policy. */
export function rateLimitPolicy(decisions: Array<[string, RateDecision]>): string {
  return decisions.map(([name, d]) => `"${name}";q=${d.limit};w=${WINDOW_MS / 1000}`).join(', ');
}

/** `"name";r=<remaining>;t=<seconds until the whole quota is back>`, one item per policy. */
export function rateLimit(decisions: Array<[string, RateDecision]>): string {
  return decisions.map(([name, d]) => `"${name}";r=${d.remaining};t=${Math.ceil(d.resetMs / 1000)}`).join(', ');
}
