import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../platform/http/openapi-responses.js';
import { networkOf } from '../platform/network.js';
import { SESSION_LIFETIME_MS } from './sessions.js';
import type { AuthService, Started } from './auth-service.js';
import { clearSessionCookie, setSessionCookie } from './session-cookie.js';
import { sessionToken } from '../platform/auth/session-resolver.js';
import * as S from './auth-schemas.js';
import { PUBLIC, RATE_LIMITED, SESSION_ONLY, WEBSITE, requireSession } from './website-access.js';

export interface AuthRoutesOptions {
  auth: AuthService;
  secureCookie: boolean;
}

/** Sign-up, verification, sign-in and out, password change and reset: the website's account routes. */
export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (app, { auth, secureCookie }) => {
  // The token goes in the cookie and nowhere else: the body names the account only.
  const signedIn = (reply: FastifyReply, started: Started) => {
    setSessionCookie(reply, started.token, SESSION_LIFETIME_MS, secureCookie);
    return { account: started.account };
  };

  app.post(
    '/auth/signup',
    {
      config: PUBLIC,
      schema: {
        ...WEBSITE('signUp', 'Create an account; a verification link is mailed (the same answer whether or not the address has an account)'),
        body: S.SignUpBody,
        response: {
          202: S.VerificationSent,
          ...errorResponses({
            invalid_request: 'A weak password (zxcvbn score under 3) or a malformed address.',
            not_found: 'Sign-up is closed (SIGNUP=closed).',
            ...RATE_LIMITED,
          }),
        },
      },
    },
    async (request, reply) => {
      await auth.signUp(request.body, networkOf(request.ip));
      return reply.code(202).send({ status: 'verification_sent' as const });
    },
  );

  app.post(
    '/auth/verify',
    {
      config: PUBLIC,
      schema: {
        ...WEBSITE('verifyEmail', 'Confirm an address with the token of its mail; signs in (sets the session cookie)'),
        body: S.TokenBody,
        response: { 200: S.SignedInAccount, ...errorResponses({ invalid_request: 'An unknown, used or expired token.' }) },
      },
    },
    async (request, reply) => signedIn(reply, await auth.verify(request.body.token)),
  );

  app.post(
    '/auth/signin',
    {
      config: PUBLIC,
      schema: {
        ...WEBSITE('signIn', 'Sign in with email and password, and a code when two-factor sign-in is on (sets the session cookie)'),
        body: S.Credentials,
        response: {
          200: Type.Union([S.SignedInAccount, S.CodeRequired]),
          ...errorResponses({
            api_key_invalid: 'Unknown address, wrong password, unverified account, or a wrong or used two-factor code: one answer for all.',
            ...RATE_LIMITED,
          }),
        },
      },
    },
    async (request, reply) => {
      const started = await auth.signIn(request.body, networkOf(request.ip));
      return started === 'code_required' ? { status: started } : signedIn(reply, started);
    },
  );

  app.get(
    '/auth/session',
    {
      config: SESSION_ONLY,
      schema: { ...WEBSITE('getSession', 'The signed-in account'), response: { 200: S.SignedInAccount } },
    },
    async (request) => {
      const session = requireSession(request.principal);
      return { account: { id: session.accountId, email: session.email } };
    },
  );

  // The website asks this at start: a signed-out visitor is an ordinary answer (200), not a 401 that
  // the browser would log as an error on every page.
  app.get(
    '/auth/state',
    {
      config: PUBLIC,
      schema: {
        ...WEBSITE('getSessionState', 'Whether this browser is signed in, and as whom'),
        description: 'Like GET /auth/session, but a browser without a live session gets `{"account": null}` rather than 401.',
        response: { 200: S.SessionState },
      },
    },
    async (request) => ({ account: (await auth.current(sessionToken(request))) ?? null }),
  );

  app.post(
    '/auth/signout',
    {
      config: PUBLIC,
      schema: {
        ...WEBSITE('signOut', 'End this session and clear its cookie'),
        body: S.EmptyBody,
        response: { 204: { type: 'null' } },
      },
    },
    async (request, reply) => {
      await auth.signOut(sessionToken(request));
      clearSessionCookie(reply, secureCookie);
      return reply.code(204).send();
    },
  );

  app.post(
    '/auth/signout-all',
    {
      config: SESSION_ONLY,
      schema: {
        ...WEBSITE('signOutEverywhere', 'End every session of the account, this one included'),
        body: S.EmptyBody,
        response: { 204: { type: 'null' } },
      },
    },
    async (request, reply) => {
      await auth.signOutEverywhere(requireSession(request.principal).accountId);
      clearSessionCookie(reply, secureCookie);
      return reply.code(204).send();
    },
  );

  app.post(
    '/auth/password',
    {
      config: SESSION_ONLY,
      schema: {
        ...WEBSITE('changePassword', 'Change the password (a session only, never an API key); every other session ends'),
        body: S.PasswordChangeBody,
        response: { 204: { type: 'null' }, ...errorResponses({ invalid_request: 'The new password is weak (zxcvbn score under 3).' }) },
      },
    },
    async (request, reply) => {
      await auth.changePassword(requireSession(request.principal), request.body);
      return reply.code(204).send();
    },
  );

  app.post(
    '/auth/reset',
    {
      config: PUBLIC,
      schema: {
        ...WEBSITE('requestPasswordReset', 'Mail a password-reset link (the same answer whether or not the address has an account)'),
        body: S.ResetBody,
        response: { 202: S.ResetSent, ...errorResponses(RATE_LIMITED) },
      },
    },
    async (request, reply) => {
      await auth.requestReset(request.body, networkOf(request.ip));
      return reply.code(202).send({ status: 'reset_sent' as const });
    },
  );

  app.post(
    '/auth/reset/check',
    {
      config: PUBLIC,
      schema: {
        ...WEBSITE('checkPasswordReset', 'Whether a reset link can still be used, and if not why'),
        body: S.ResetCheckBody,
        response: { 200: S.ResetLinkState },
      },
    },
    async (request) => ({ state: await auth.resetState(request.body.token) }),
  );

  app.post(
    '/auth/reset/confirm',
    {
      config: PUBLIC,
      schema: {
        ...WEBSITE('confirmPasswordReset', 'Choose a new password with the token of a reset mail; every session of the account ends'),
        body: S.ResetConfirmBody,
        response: { 204: { type: 'null' }, ...errorResponses({ invalid_request: 'An unknown, used or expired token, or a weak password.' }) },
      },
    },
    async (request, reply) => {
      await auth.confirmReset(request.body);
      return reply.code(204).send();
    },
  );
};
