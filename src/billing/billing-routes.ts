import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { networkOf } from '../platform/network.js';
import { CapacityBody, CapacityPack, QuoteBody, QuoteResult, Usage } from './billing-schemas.js';
import { IdempotencyHeaders } from '../platform/http/common-schemas.js';
import { GENERAL, errorResponses, ok } from '../platform/http/openapi-responses.js';
import { tags } from '../platform/http/openapi-document.js';
import type { Services } from '../platform/http/services.js';
import { API_LIMITS, formatCount } from '../platform/api-limits.js';

/** Usage, quotes and capacity packs: everything about purchased credits that the API exposes. */
export const billingRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { billing } = services;
  const { prices, defaults } = API_LIMITS;

  app.get(
    '/account/usage',
    {
      config: { auth: { scope: 'links:read' } },
      schema: {
        operationId: 'getUsage',
        tags: tags('account'),
        summary: 'Allowances, balance, key budget and prices',
        description: 'The UTC month so far, for the whole account (website, API and every key), and the calling key’s own budget and spending.',
        response: { 200: ok(Usage, 'The account’s usage this UTC month.'), ...errorResponses({}) },
      },
    },
    async (request) => billing.usage(request.principal),
  );

  app.post(
    '/quotes',
    {
      config: { auth: { scope: 'links:read' } },
      schema: {
        operationId: 'createQuote',
        tags: tags('account'),
        summary: 'Estimate what an action would cost this key now (reserves nothing)',
        description: `\`link.create\`: one link, new or a kept trial link (free while free links remain, else ${prices.extraLinkCredits} credits); \`tracking.purchase\`: one capacity pack (${prices.packCredits} credits). An estimate: the shared free allowance may be used up before the action, and the final spend must stay within \`maxCredits\`, the key’s monthly budget and the balance. \`canSpend\` says whether this key could perform the action now, scopes included.`,
        body: QuoteBody,
        response: { 200: ok(QuoteResult, 'The quote.'), ...errorResponses({}) },
      },
    },
    async (request) => billing.quote(request.principal, request.body.action),
  );

  app.post(
    '/links/capacity',
    {
      config: { auth: { scope: 'credits:spend' } },
      schema: {
        operationId: 'buyCapacityPack',
        tags: tags('account'),
        summary: `Buy ${formatCount(API_LIMITS.prices.packVisits)} recorded visits for ${API_LIMITS.prices.packCredits} purchased credits`,
        description: `Paid with purchased credits only. Unused visits carry forward to later months; recording stays within the service’s shared daily ceiling (${formatCount(defaults.trackingDailyLimit)} visits by default). **Idempotency-Key** (required): the same key with the identical payload, from the same network on the same UTC day, returns the first result again; after an uncertain result, retry with the same key, never a new one.`,
        headers: IdempotencyHeaders,
        body: CapacityBody,
        response: {
          200: ok(CapacityPack, 'The pack bought (or, on a replay, the one bought first).'),
          ...errorResponses({
            invalid_request: `${GENERAL.invalid_request} Also: a missing or non-uuid \`Idempotency-Key\`; \`maxCredits\` other than ${prices.packCredits}.`,
            credits_required: `The purchased balance, less active reservations, is under ${prices.packCredits} credits.`,
            api_budget_exceeded: 'The price would take the key past its monthly budget.',
            request_conflict:
              'The `Idempotency-Key` was used with another payload, by another key, from another network or on another UTC day, or its first request is still in flight.',
          }),
        },
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
