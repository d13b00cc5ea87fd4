import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { scopesOf, type Principal } from './principal.js';
import { accessConditions, documentedAccess, type PrincipalResolver, type RouteAccess, type RouteRule } from './route-access.js';
import { noteConditions } from '../http/openapi-responses.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Who may call the route (route-access.ts); every route under installAuth must say. */
    auth?: RouteAccess;
  }
}

const ANONYMOUS: Principal = { kind: 'anonymous' };

/**
 * Establishes who is calling before the body is even parsed, so that credentials are judged first.
 * The resolvers are asked in order and the first credential found decides (an invalid one is 401 at
 * once); then the route's rule: nobody where credentials are needed is 401, a principal the route does
 * not take or without its scope is 403. Each route's `config.auth` also writes its OpenAPI security
 * and the 401 and 403 it answers, so the document and the enforcement cannot disagree. Finer rules (a trial token's own link,
 * credits:spend for extras) stay with the services.
 */
export function installAuth(app: FastifyInstance, resolvers: readonly PrincipalResolver[]): void {
  app.decorateRequest('principal', null as never);
  app.addHook('onRoute', (route) => {
    const access = route.config?.auth;
    if (access === undefined) throw new Error(`${String(route.method)} ${route.url} does not declare config.auth`);
    route.schema = Object.assign(route.schema ?? {}, documentedAccess(access, resolvers));
    noteConditions(route, accessConditions(access));
  });
  const resolvedBy = new WeakMap<Principal, PrincipalResolver>();
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.auth;
    if (access === undefined || access === 'public') {
      request.principal = ANONYMOUS;
      return;
    }
    try {
      const principal = (await identify(request, access, resolvers, resolvedBy)) ?? ANONYMOUS;
      check(principal, access);
      request.principal = principal;
    } catch (error) {
      // A hidden route refuses as if it were not there; storage trouble is still 503.
      if (access.hidden && error instanceof AppError && error.status < 500) throw new AppError('not_found');
      throw error;
    }
  });
  app.addHook('onResponse', async (request, reply) => {
    const principal = request.principal as Principal | null;
    if (principal !== null) resolvedBy.get(principal)?.answered?.(principal, reply.statusCode);
  });
}

async function identify(
  request: Parameters<PrincipalResolver['resolve']>[0],
  rule: RouteRule,
  resolvers: readonly PrincipalResolver[],
  resolvedBy: WeakMap<Principal, PrincipalResolver>,
) {
  for (const resolver of resolvers) {
    const principal = await resolver.resolve(request, rule);
    if (principal === undefined) continue;
    resolvedBy.set(principal, resolver);
    return principal;
  }
  return undefined;
}

function check(principal: Principal, rule: RouteRule): void {
  if (principal.kind === 'anonymous') {
    if (!rule.anonymous) throw new AppError('api_key_invalid');
    return;
  }
  if (rule.sessionOnly && principal.kind !== 'session') throw new AppError('api_scope_required');
  // A genuine credential that does not authorize this route (API.md part 5: read, QR and stats only).
  if (principal.kind === 'trial') {
    if (!rule.trialToken) throw new AppError('api_scope_required');
    return;
  }
  if (!scopesOf(principal).has(rule.scope)) throw new AppError('api_scope_required');
}
