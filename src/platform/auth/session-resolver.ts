import { AppError } from '../errors.js';
import type { PrincipalResolver } from './route-access.js';

/** The website's session cookie (src/accounts/session-cookie.ts sets it). */
/** The website's session cookie (the accounts capability sets it; rate limits recognise it). */
export const SESSION_COOKIE = 'sl_session';

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
      const token = (request as { cookies?: Record<string, string | undefined> }).cookies?.[SESSION_COOKIE];
      if (token === undefined || token === '') return undefined;
      const signedIn = await sessions.resolve(token);
      if (!signedIn) throw new AppError('api_key_invalid');
      return { kind: 'session', accountId: signedIn.accountId, sessionId: signedIn.sessionId, email: signedIn.email };
    },
  };
}
