import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { PrincipalResolver } from './route-access.js';

/** The website's session cookie (the accounts capability sets it; rate limits recognise it). */
export const SESSION_COOKIE = 'sl_session';

/**
 * The session cookie's token; undefined when the request carries none, or carries the cookie more
 * than once. A browser sends every cookie whose domain and path match, and the cookie parser keeps the
 * first: a cookie planted for a narrower path or a parent domain would choose whose session the
 * request runs in. A request with two is taken as signed out (docs/adr/0064-website-sessions.md).
 */
export function sessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined || sessionCookieCount(header) !== 1) return undefined;
  const token = (request as { cookies?: Record<string, string | undefined> }).cookies?.[SESSION_COOKIE];
  return token === '' ? undefined : token;
}

/** Cookies named like the session's in a Cookie header, named as the cookie parser reads names (trimmed). */
function sessionCookieCount(header: string): number {
  let count = 0;
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals !== -1 && pair.slice(0, equals).trim() === SESSION_COOKIE) count++;
  }
  return count;
}

export interface SessionLookup {
  /** The signed-in, verified account of a cookie token; undefined when unknown, expired or revoked. */
  resolve(token: string): Promise<{ sessionId: string; accountId: string; email: string } | undefined>;
}

/**
 * The `sl_session` cookie of a person signed in to the website (docs/adr/0064-website-sessions.md):
 * the owner of a verified account, with every scope and no key budget. A cookie that names no live
 * session is 401, like a bad key: it never falls back to a trial. Needs @fastify/cookie registered.
 */
export function sessionResolver(sessions: SessionLookup): PrincipalResolver {
  return {
    kind: 'session',
    security: () => ({ session: [] }),
    async resolve(request) {
      const token = sessionToken(request);
      if (token === undefined) return undefined;
      const signedIn = await sessions.resolve(token);
      if (!signedIn) throw new AppError('api_key_invalid');
      return { kind: 'session', accountId: signedIn.accountId, sessionId: signedIn.sessionId, email: signedIn.email };
    },
  };
}
