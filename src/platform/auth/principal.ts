import { AppError } from '../errors.js';

export const SCOPES = ['links:read', 'links:write', 'analytics:read', 'qr:read', 'credits:spend'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** Who is calling: an API key, the trial token of one link, or nobody (the no-key trial). */
export type Principal =
  | { kind: 'key'; keyId: string; accountId: string; scopes: ReadonlySet<Scope>; budget: number | null }
  | { kind: 'trial'; linkId: string }
  | { kind: 'anonymous' };

export type KeyPrincipal = Extract<Principal, { kind: 'key' }>;

/** A key with the scope passes; anything else is refused (401 without credentials, 403 without scope). */
export function requireKey(principal: Principal, scope: Scope): KeyPrincipal {
  if (principal.kind !== 'key') throw new AppError(principal.kind === 'anonymous' ? 'api_key_invalid' : 'api_scope_required');
  if (!principal.scopes.has(scope)) throw new AppError('api_scope_required');
  return principal;
}
