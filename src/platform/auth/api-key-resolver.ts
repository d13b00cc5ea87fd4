import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors.js';
import type { Clock } from '../time.js';
import type { Principal, Scope } from './principal.js';
import type { PrincipalResolver } from './route-access.js';
import { hashSecret, isApiKeyShaped, sameHash } from './secrets.js';

/** An unrevoked key of an existing account, as authentication needs it. */
export interface ActiveKey {
  id: string;
  accountId: string;
  keyHash: string;
  scopes: Scope[];
  budget: number | null;
  lastUsedAt: number | null;
}

export interface KeyLookup {
  activeKeyByHash(hash: string): Promise<ActiveKey | undefined>;
  markKeyUsed(id: string, at: number): Promise<void>;
}

/** last_used_at is kept to the minute: a busy key costs one write a minute, not one per request. */
export const KEY_USE_RESOLUTION_MS = 60_000;

/**
 * `Authorization: Bearer shl_live_…`. A request that sends the header must hold a valid, unrevoked key:
 * anything else is 401 and never falls back to another credential.
 */
export function apiKeyResolver(keys: KeyLookup, now: Clock, log: FastifyBaseLogger): PrincipalResolver {
  const lastUse = new WeakMap<Principal, number | null>();
  return {
    kind: 'key',
    security: (rule) => (rule.sessionOnly ? undefined : { apiKey: [rule.scope] }),
    async resolve(request) {
      const authorization = request.headers.authorization;
      if (authorization === undefined) return undefined;
      const secret = /^Bearer ([^\s]+)$/i.exec(authorization)?.[1];
      if (!secret || !isApiKeyShaped(secret)) throw new AppError('api_key_invalid');
      const hash = hashSecret(secret);
      const key = await keys.activeKeyByHash(hash);
      if (!key || !sameHash(key.keyHash, hash)) throw new AppError('api_key_invalid');
      const principal: Principal = { kind: 'key', keyId: key.id, accountId: key.accountId, scopes: new Set(key.scopes), budget: key.budget };
      lastUse.set(principal, key.lastUsedAt);
      return principal;
    },
    // A key is used when a request it made is served: a refused request changes nothing stored.
    answered(principal, statusCode) {
      const last = lastUse.get(principal);
      if (principal.kind !== 'key' || statusCode >= 400 || last === undefined) return;
      const at = now();
      if (last === null || at - last >= KEY_USE_RESOLUTION_MS) {
        // After the answer: when a key was last used is worth no delay to the request that uses it.
        keys.markKeyUsed(principal.keyId, at).catch((error: unknown) => log.warn({ err: error }, 'could not record when a key was used'));
      }
    },
  };
}
