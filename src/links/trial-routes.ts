import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { API_LIMITS } from '../platform/api-limits.js';
import { networkOf } from '../platform/network.js';
import type { Services } from '../platform/http/services.js';
import { errorResponses } from '../platform/http/common-schemas.js';
import { TrialAllowance } from './link-schemas.js';
import { access } from '../platform/http/openapi.js';

export const trialRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/trial',
    {
      config: { public: true },
      schema: {
        tags: ['trial'],
        summary: 'Remaining no-key trial allowance of the caller’s network',
        ...access(null),
        response: { 200: TrialAllowance, ...errorResponses(429, 503) },
      },
    },
    async (request) => {
      const { remaining, resetAt } = await services.links.trialAllowance(networkOf(request.ip));
      return {
        trial: true as const,
        remaining,
        dailyLinks: API_LIMITS.trial.linksPerNetworkPerDay,
        expiresAfterDays: API_LIMITS.trial.lifetimeDays,
        resetAt,
        sharedCapacity: true as const,
      };
    },
  );
};
