import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { API_LIMITS } from '../platform/api-limits.js';
import { networkOf } from '../platform/network.js';
import type { Services } from '../platform/http/services.js';
import { errorResponses, ok } from '../platform/http/openapi-responses.js';
import { tags } from '../platform/http/openapi-document.js';
import { TrialAllowance } from './link-schemas.js';

export const trialRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/trial',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getTrialAllowance',
        tags: tags('trial'),
        summary: 'Remaining no-key trial allowance of the caller’s network',
        description:
          'No credentials needed; any sent are ignored. The allowance resets at midnight UTC, and the service’s shared daily trial capacity may still run out before it is used.',
        response: { 200: ok(TrialAllowance, 'The network’s trial allowance today.'), ...errorResponses({}) },
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
