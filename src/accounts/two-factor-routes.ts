import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../platform/http/openapi-responses.js';
import { networkOf } from '../platform/network.js';
import * as S from './auth-schemas.js';
import type { TwoFactor } from './two-factor.js';
import { RATE_LIMITED, SESSION_ONLY, WEBSITE, requireSession } from './website-access.js';

/** Two-factor sign-in on the settings page (session only): its state, setting it up, turning it off. */
export const twoFactorRoutes: FastifyPluginAsyncTypebox<{ twoFactor: TwoFactor }> = async (app, { twoFactor }) => {
  app.get(
    '/auth/two-factor',
    {
      config: SESSION_ONLY,
      schema: { ...WEBSITE('getTwoFactor', 'Whether two-factor sign-in is on, and recovery codes left'), response: { 200: S.TwoFactorStatus } },
    },
    async (request) => twoFactor.status(requireSession(request.principal).accountId),
  );

  app.post(
    '/auth/two-factor/setup',
    {
      config: SESSION_ONLY,
      schema: {
        ...WEBSITE('setUpTwoFactor', 'A new TOTP secret for an authenticator app; it is on once confirmed with a code'),
        body: S.EmptyBody,
        response: { 200: S.TwoFactorSetup, ...errorResponses({ request_conflict: 'Two-factor sign-in is on already: turn it off first.' }) },
      },
    },
    async (request) => {
      const session = requireSession(request.principal);
      return twoFactor.setUp(session.accountId, session.email);
    },
  );

  app.post(
    '/auth/two-factor/confirm',
    {
      config: SESSION_ONLY,
      schema: {
        ...WEBSITE('confirmTwoFactor', 'Turn two-factor sign-in on with a code from the app; answers the recovery codes, shown this once'),
        body: S.CodeBody,
        response: {
          200: S.RecoveryCodes,
          ...errorResponses({ invalid_request: 'No secret is being set up, or the code is wrong.', request_conflict: 'Two-factor sign-in is on already.' }),
        },
      },
    },
    async (request) => twoFactor.confirm(requireSession(request.principal).accountId, request.body.code),
  );

  app.post(
    '/auth/two-factor/disable',
    {
      config: SESSION_ONLY,
      schema: {
        ...WEBSITE('disableTwoFactor', 'Turn two-factor sign-in off, with a code from the app or a recovery code'),
        body: S.CodeBody,
        response: {
          204: { type: 'null' },
          ...errorResponses({ invalid_request: 'The code is wrong or used, or two-factor sign-in is off.', ...RATE_LIMITED }),
        },
      },
    },
    async (request, reply) => {
      const session = requireSession(request.principal);
      await twoFactor.disable({ accountId: session.accountId, email: session.email }, request.body.code, networkOf(request.ip));
      return reply.code(204).send();
    },
  );
};
