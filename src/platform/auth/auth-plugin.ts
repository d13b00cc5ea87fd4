import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { KeyStore, LinkStore } from '../../links/ports.js';
import type { Principal, Scope } from './principal.js';
import { hashSecret, isApiKeyShaped, isTrialTokenShaped, sameHash } from './secrets.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** The route accepts a link's trial token in place of a key (read, stats, QR). */
    trialToken?: boolean;
    /** The route needs no credentials at all and ignores any sent (GET /trial). */
    public?: boolean;
  }
}

const TRIAL_HEADER = 'x-service-trial-token';

/** What a route's schema says about its callers (src/platform/http/openapi.ts, `access()`). */
interface AccessSchema {
  'x-scopes'?: string[];
  security?: Record<string, string[]>[];
}

/** Whether a route takes a trial token, and whether it needs credentials at all (no anonymous caller). */
interface TrialRule {
  accepted: boolean;
  judged: boolean;
}

/**
 * Establishes who is calling before the body is even parsed, so that credentials are judged first: a
 * supplied Authorization header must hold a valid, unrevoked key (anything else is 401 and never falls
 * back to the trial); no credentials on a route that needs them is 401; a key without the route's
 * scope is 403, and so is a valid trial token on a route that needs credentials but takes no trial
 * token. The route's scope and whether it admits anonymous callers are read from its OpenAPI
 * `x-scopes` and `security`, so the document and the enforcement cannot disagree. Finer rules (a trial
 * token's own link, credits:spend for extras) stay with the domain.
 */
export function installAuth(app: FastifyInstance, stores: { keys: KeyStore; links: LinkStore }): void {
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.public) {
      request.principal = { kind: 'anonymous' };
      return;
    }
    const schema = request.routeOptions.schema as AccessSchema | undefined;
    const scope = schema?.['x-scopes']?.[0];
    const anonymousAllowed = scope === undefined || (schema?.security?.some((requirement) => Object.keys(requirement).length === 0) ?? false);
    const accepted = request.routeOptions.config.trialToken === true;
    // Where anyone may call without credentials (POST /links makes a trial link), a trial token is ignored.
    const principal = await identify(request, stores, { accepted, judged: accepted || !anonymousAllowed });
    if (scope !== undefined) {
      if (principal.kind === 'anonymous' && !anonymousAllowed) throw new AppError('api_key_invalid');
      if (principal.kind === 'key' && !principal.scopes.has(scope as Scope)) throw new AppError('api_scope_required');
    }
    request.principal = principal;
  });
}

async function identify(request: FastifyRequest, stores: { keys: KeyStore; links: LinkStore }, trial: TrialRule): Promise<Principal> {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer ([^\s]+)$/i.exec(authorization);
    const secret = match?.[1];
    if (!secret || !isApiKeyShaped(secret)) throw new AppError('api_key_invalid');
    const hash = hashSecret(secret);
    const key = await stores.keys.activeKeyByHash(hash);
    if (!key || !sameHash(key.keyHash, hash)) throw new AppError('api_key_invalid');
    return { kind: 'key', keyId: key.id, accountId: key.accountId, scopes: new Set(key.scopes), budget: key.budget };
  }
  const token = request.headers[TRIAL_HEADER];
  if (trial.judged && token !== undefined) {
    if (typeof token !== 'string' || !isTrialTokenShaped(token)) throw new AppError('api_key_invalid');
    const link = await stores.links.byTrialTokenHash(hashSecret(token));
    if (!link) throw new AppError('api_key_invalid');
    // A genuine credential that does not authorize this route (API.md part 5: read, QR and stats only).
    if (!trial.accepted) throw new AppError('api_scope_required');
    return { kind: 'trial', linkId: link.id };
  }
  return { kind: 'anonymous' };
}
