import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.js';
import { noteConditions } from '../platform/http/openapi-responses.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A website-only route: checked against cross-site requests even before anyone is signed in. */
    website?: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const CROSS_SITE =
  'A state-changing request made with a website session, or to a website-only route, that is not JSON or does not come from the website’s own origin (CSRF check).';

/**
 * A cookie goes with every request the browser makes, whoever's page asks for it; a key or a trial
 * token goes only where a program puts it. So a state-changing request made with the session (or to a
 * website-only route) must show that the website itself sent it: a JSON body, which no form of
 * another site can send, and a browser's word that it is same-origin (Sec-Fetch-Site, else Origin).
 * Anything else is 403 api_scope_required, before the body is read. Install after installAuth.
 */
export function installCsrfCheck(api: FastifyInstance, publicUrl: string): void {
  const publicOrigin = new URL(publicUrl).origin;
  api.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    // A hidden route's refusals are all 404 (route-access.ts), this one too.
    if (auth !== undefined && auth !== 'public' && auth.hidden) return;
    const checked = (auth !== undefined && auth !== 'public') || route.config?.website === true;
    const methods = [route.method].flat();
    if (checked && methods.some((method) => !SAFE_METHODS.has(method))) noteConditions(route, { api_scope_required: CROSS_SITE }, true);
  });
  api.addHook('onRequest', async (request) => {
    if (SAFE_METHODS.has(request.method)) return;
    if (request.principal?.kind !== 'session' && request.routeOptions.config.website !== true) return;
    if (isJson(request.headers['content-type']) && sameOrigin(request, publicOrigin)) return;
    const auth = request.routeOptions.config.auth;
    throw new AppError(auth !== undefined && auth !== 'public' && auth.hidden ? 'not_found' : 'api_scope_required');
  });
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType.trim());
}

/** Sec-Fetch-Site when the browser sends it (same-origin, or none: typed by the person); else Origin. */
function sameOrigin(request: FastifyRequest, publicOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = request.headers.origin;
  return origin !== undefined && (origin === publicOrigin || origin === `${request.protocol}://${request.host}`);
}
