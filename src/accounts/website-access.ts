import { AppError } from '../platform/errors.js';
import type { Principal } from '../platform/auth/principal.js';
import { GENERAL, type Conditions } from '../platform/http/openapi-responses.js';
import { tags } from '../platform/http/openapi-document.js';

/** An operation only the website uses: its operationId, the `website` tag and summary, marked `x-website-only` (docs/adr/0065). */
export const WEBSITE = (operationId: string, summary: string) => ({ operationId, tags: tags('website'), summary, 'x-website-only': true });

/** Anyone may call (signing in, signing up); still checked against cross-site requests. */
export const PUBLIC = { auth: 'public', website: true } as const;

/** The signed-in owner only: a session, never an API key (key management, password change). */
export const SESSION_ONLY = { auth: { scope: 'links:read', sessionOnly: true }, website: true } as const;

export const RATE_LIMITED: Conditions = {
  rate_limited: `${GENERAL.rate_limited} Also: too many attempts in a minute from this network or for this address, whether or not it has an account.`,
};

export type SessionPrincipal = Extract<Principal, { kind: 'session' }>;

/** The route's auth rule has already refused anything but a session; this narrows the type. */
export function requireSession(principal: Principal): SessionPrincipal {
  if (principal.kind !== 'session') throw new AppError(principal.kind === 'anonymous' ? 'api_key_invalid' : 'api_scope_required');
  return principal;
}
