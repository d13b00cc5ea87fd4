import type { FastifyRequest } from 'fastify';
import type { Principal, PrincipalKind, Scope } from './principal.js';
import type { Conditions } from '../http/openapi-responses.js';

/**
 * Who may call a route, declared once in its `config.auth`; the check (auth-plugin.ts) and the
 * OpenAPI `security` of the operation are both made from it. `public`: no credentials are needed and
 * any sent are ignored. Otherwise an account's key with `scope` or its signed-in owner may call;
 * `trialToken` admits the trial token of the link named in the path (the rules check which link),
 * `anonymous` admits a caller without credentials (POST /links makes a trial link); `sessionOnly`
 * takes the signed-in owner alone, never a key (key management on the website).
 */
export type RouteAccess = 'public' | RouteRule;

export interface RouteRule {
  scope: Scope;
  trialToken?: boolean;
  anonymous?: boolean;
  sessionOnly?: boolean;
  /** Every refusal is 404 not_found, as if the route did not exist (the operator console: docs/adr/0080). */
  hidden?: boolean;
}

/**
 * One kind of credential. `resolve` reads the request and answers with the principal its credential
 * names, undefined when the request carries none of it (or the route ignores it), or throws an
 * AppError when it carries one that is no good (401 api_key_invalid). `security` is the OpenAPI
 * requirement the credential satisfies on a route, or undefined where the route does not take it.
 */
export interface PrincipalResolver {
  readonly kind: Exclude<PrincipalKind, 'anonymous'>;
  resolve(request: FastifyRequest, rule: RouteRule): Promise<Principal | undefined>;
  security(rule: RouteRule): Record<string, string[]> | undefined;
  /** Told once a request it resolved has been answered, with the status (e.g. to note a key's use). */
  answered?(principal: Principal, statusCode: number): void;
}

/** The operation's OpenAPI `security` and `x-scopes`; an empty requirement means "no credentials". */
export function documentedAccess(access: RouteAccess, resolvers: readonly PrincipalResolver[]) {
  if (access === 'public') return { security: [] as Record<string, string[]>[], 'x-scopes': [] as string[] };
  const security = resolvers.map((resolver) => resolver.security(access)).filter((requirement) => requirement !== undefined);
  if (access.anonymous) security.push({});
  // A hidden route answers 404 for every refusal: the document says so, as clients see it.
  return { security, 'x-scopes': [access.scope], ...(access.hidden ? { 'x-hidden': true } : {}) };
}

const BAD_KEY = 'an `Authorization` header that is not `Bearer <key>`, or a key that is unknown or revoked';
const BAD_TOKEN = 'an `X-Service-Trial-Token` that is malformed or unknown';
const BAD_SESSION = 'a session cookie that names no live session (or is sent twice)';

/** The 401 and 403 a route's rule makes it answer, in words (installAuth notes them on every route). */
export function accessConditions(access: RouteAccess): Conditions {
  if (access === 'public') return {};
  if (access.hidden) {
    return {
      not_found:
        'Anyone but whom the route is for (no credentials, an API key, a trial token, another person’s session, a cross-site request): the route answers as if it did not exist.',
    };
  }
  const { scope } = access;
  if (access.sessionOnly) {
    return {
      api_key_invalid: `Not signed in: no session cookie, or ${BAD_SESSION}. Also ${BAD_KEY}, or ${BAD_TOKEN}.`,
      api_scope_required: 'A valid API key or trial token: only the signed-in owner’s website session is taken.',
    };
  }
  if (access.anonymous) {
    return {
      api_key_invalid: `Invalid credentials: ${BAD_KEY}, or ${BAD_SESSION}. Credentials that are sent never fall back to the no-key trial.`,
      api_scope_required: access.trialToken
        ? `The key lacks the \`${scope}\` scope, or the trial token is another link’s.`
        : `The key lacks the \`${scope}\` scope.`,
    };
  }
  return {
    api_key_invalid: `Missing or invalid credentials: none at all, ${BAD_KEY}, ${BAD_TOKEN}, or ${BAD_SESSION}.`,
    api_scope_required: access.trialToken
      ? `The key lacks the \`${scope}\` scope, or the trial token is another link’s.`
      : `The key lacks the \`${scope}\` scope, or a valid trial token is sent (it authorizes only reading its link, the link’s QR code and its stats).`,
  };
}
