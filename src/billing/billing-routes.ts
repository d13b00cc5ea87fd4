import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { networkOf } from '../platform/network.js';
import { access } from '../platform/http/openapi.js';
import { CapacityBody, CapacityPack, QuoteBody, QuoteResult, Usage } from './billing-schemas.js';
import { COMMON_ERRORS, IdempotencyHeaders, errorResponses } from '../platform/http/common-schemas.js';
import type { Services } from '../platform/http/services.js';
import { API_LIMITS, formatCount } from '../platform/api-limits.js';

/** Usage, quotes and capacity packs: everything about purchased credits that the API exposes. */
export const billingRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { billing } = services;
  const errors = errorResponses(...COMMON_ERRORS);

  app.get(
    '/account/usage',
    { schema: { tags: ['account'], summary: 'Allowances, balance, key budget and prices', ...access('links:read'), response: { 200: Usage, ...errors } } },
    async (request) => billing.usage(request.principal),
  );

  app.post(
    '/quotes',
    {
      schema: {
        tags: ['account'],
        summary: 'Estimate what an action would cost this key now (reserves nothing)',
        ...access('links:read'),
        body: QuoteBody,
        response: { 200: QuoteResult, ...errors },
      },
    },
    async (request) => billing.quote(request.principal, request.body.action),
  );

  app.post(
    '/links/capacity',
    {
      schema: {
        tags: ['account'],
        summary: `Buy ${formatCount(API_LIMITS.prices.packVisits)} recorded visits for ${API_LIMITS.prices.packCredits} purchased credits`,
        ...access('credits:spend'),
        headers: IdempotencyHeaders,
        body: CapacityBody,
        response: { 200: CapacityPack, ...errors },
      },
    },
    async (request) =>
      billing.purchasePack(request.principal, request.headers['idempotency-key'], networkOf(request.ip), request.body, (pack) => ({
        id: pack.id,
        status: pack.status,
        credits: pack.credits,
      })),
  );
};
