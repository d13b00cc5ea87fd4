import type {} from '@fastify/cookie';
import type { FastifyReply } from 'fastify';

import { SESSION_COOKIE } from '../platform/auth/session-resolver.js';

export { SESSION_COOKIE };

/**
 * HttpOnly: no script reads it. SameSite=Lax: other sites' forms and scripts do not send it. Secure
 * whenever the service is public over HTTPS. It lasts as long as the session can (the service ends it
 * sooner when it goes unused).
 */
export function setSessionCookie(reply: FastifyReply, token: string, maxAgeMs: number, secure: boolean): void {
  reply.setCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: Math.floor(maxAgeMs / 1000) });
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
}
