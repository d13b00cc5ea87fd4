import { AppError } from '../errors.js';

export const SCOPES = ['links:read', 'links:write', 'analytics:read', 'qr:read', 'credits:spend'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

const EVERY_SCOPE: ReadonlySet<Scope> = new Set(SCOPES);
const NO_SCOPE: ReadonlySet<Scope> = new Set();

/**
 * Who is calling (docs/adr/0063-principals.md): an API key of an account, the signed-in owner of a
 * verified account (a browser session: every scope, no key budget), the trial token of one link, or
 * nobody (the no-key trial).
 */
export type Principal =
  | { kind: 'key'; keyId: string; accountId: string; scopes: ReadonlySet<Scope>; budget: number | null }
  | { kind: 'session'; accountId: string; sessionId: string; email: string }
  | { kind: 'trial'; linkId: string }
  | { kind: 'anonymous' };

export type PrincipalKind = Principal['kind'];

/** What a principal may do on its account's behalf: a session holds every scope. */
export function scopesOf(principal: Principal): ReadonlySet<Scope> {
  if (principal.kind === 'key') return principal.scopes;
  return principal.kind === 'session' ? EVERY_SCOPE : NO_SCOPE;
}

/** The account a principal acts for; undefined for a trial token or nobody. */
export const accountOf = (principal: Principal): string | undefined =>
  principal.kind === 'key' || principal.kind === 'session' ? principal.accountId : undefined;

/** An account's caller as the rules see it: its scopes and, when it is a key, the key and its budget. */
export interface AccountCaller {
  accountId: string;
  scopes: ReadonlySet<Scope>;
  /** The key in use, with its monthly budget (null: no limit beyond the balance); null for a session. */
  key: { id: string; budget: number | null } | null;
}

/**
 * An account's key or session with the scope passes; anything else is refused: 401 without
 * credentials, 403 with credentials that do not authorize this (a trial token, a key without the scope).
 */
export function requireAccount(principal: Principal, scope: Scope): AccountCaller {
  if (principal.kind === 'anonymous') throw new AppError('api_key_invalid');
  if (principal.kind === 'trial' || !scopesOf(principal).has(scope)) throw new AppError('api_scope_required');
  const key = principal.kind === 'key' ? { id: principal.keyId, budget: principal.budget } : null;
  return { accountId: principal.accountId, scopes: scopesOf(principal), key };
}

/**
 * The key a spend counts against, with its monthly budget. A session spends without a key: its
 * reservations name none and no key budget limits it, only the balance (docs/adr/0064-website-sessions.md).
 */
export function spendingKey(caller: AccountCaller): { id: string | null; budget: number | null } {
  return caller.key ?? { id: null, budget: null };
}
