import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import type { KeyStore, LinkStore } from '../../domain/ports.js';
import type { Principal } from '../../domain/principal.js';
import { hashSecret, isApiKeyShaped, isTrialTokenShaped, sameHash } from '../../domain/secrets.js';

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

/**
 * Establishes who is calling, before validation so that credentials are judged first. A supplied
 * Authorization header must hold a valid, unrevoked key: anything else is 401 and never falls back to
 * the trial. The routes decide what the principal may do.
 */
export function installAuth(app: FastifyInstance, stores: { keys: KeyStore; links: LinkStore }): void {
  app.decorateRequest('principal', null as never);
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.public) {
      request.principal = { kind: 'anonymous' };
      return;
    }
    request.principal = await identify(request, stores, request.routeOptions.config.trialToken === true);
  });
}

async function identify(request: FastifyRequest, stores: { keys: KeyStore; links: LinkStore }, trialAccepted: boolean): Promise<Principal> {
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
  if (trialAccepted && token !== undefined) {
    if (typeof token !== 'string' || !isTrialTokenShaped(token)) throw new AppError('api_key_invalid');
    const link = await stores.links.byTrialTokenHash(hashSecret(token));
    if (!link) throw new AppError('api_key_invalid');
    return { kind: 'trial', linkId: link.id };
  }
  return { kind: 'anonymous' };
}
