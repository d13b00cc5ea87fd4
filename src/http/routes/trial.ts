import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { API_CONSTANTS } from '../../config.js';
import { networkOf } from '../../domain/network.js';
import type { Services } from '../services.js';
import { errorResponses } from '../schemas/common.js';
import { TrialAllowance } from '../schemas/links.js';
import { access } from '../plugins/openapi.js';

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
        dailyLinks: API_CONSTANTS.trialLinksPerNetwork as 3,
        expiresAfterDays: API_CONSTANTS.trialLifetimeDays as 7,
        resetAt,
        sharedCapacity: true as const,
      };
    },
  );
};
