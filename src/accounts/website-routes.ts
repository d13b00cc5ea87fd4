import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../platform/http/openapi-responses.js';
import type { PackService } from '../billing/billing-service.js';
import type { KyselyCreditHistory } from '../billing/credit-history.js';
import type { AccountService } from './account-service.js';
import { Site, EmptyBody } from './auth-schemas.js';
import { CreditHistory, KeyCreateBody, KeyCreated, KeyList, PackList, PackRefunded } from './website-schemas.js';
import { SESSION_ONLY, WEBSITE, requireSession } from './website-access.js';

export interface WebsiteRoutesOptions {
  accounts: AccountService;
  packs: PackService;
  credits: Pick<KyselyCreditHistory, 'of'>;
  site: { signup: 'open' | 'closed'; creditsHelp: string };
}

const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

/** The website's own endpoints for keys, packs and the credit history (session only). */
export const websiteRoutes: FastifyPluginAsyncTypebox<WebsiteRoutesOptions> = async (app, { accounts, packs, credits, site }) => {
  app.get(
    '/site',
    {
      config: { auth: 'public', rateLimit: false },
      schema: { ...WEBSITE('getSite', 'What the website shows before sign-in: whether sign-up is open, how to get credits'), response: { 200: Site } },
    },
    async () => site,
  );

  app.get(
    '/keys',
    {
      config: SESSION_ONLY,
      schema: { ...WEBSITE('listKeys', 'The account’s unrevoked API keys, newest first (never the secrets)'), response: { 200: KeyList } },
    },
    async (request) => ({
      keys: await accounts.listKeys(requireSession(request.principal).accountId),
    }),
  );

  app.post(
    '/keys',
    {
      config: SESSION_ONLY,
      schema: {
        ...WEBSITE('createKey', 'Create an API key; its secret is in this answer only'),
        body: KeyCreateBody,
        response: { 200: KeyCreated },
      },
    },
    async (request) => accounts.createKey(requireSession(request.principal).accountId, request.body),
  );

  app.delete(
    '/keys/:id',
    {
      config: SESSION_ONLY,
      schema: {
        ...WEBSITE('revokeKey', 'Revoke an API key of the account, at once'),
        params: IdParams,
        response: { 204: { type: 'null' }, ...errorResponses({ not_found: 'No such key in this account.' }) },
      },
    },
    async (request, reply) => {
      await accounts.revokeKey(request.params.id, requireSession(request.principal).accountId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/account/packs',
    { config: SESSION_ONLY, schema: { ...WEBSITE('listPacks', 'The account’s capacity packs, oldest first'), response: { 200: PackList } } },
    async (request) => {
      const list = await packs.list(requireSession(request.principal).accountId);
      return { packs: list.map((pack) => ({ ...pack, refundable: pack.status === 'active' && pack.visitsUsed === 0 })) };
    },
  );

  app.post(
    '/account/packs/:id/refund',
    {
      config: SESSION_ONLY,
      schema: {
        ...WEBSITE('refundPack', 'Return an unused capacity pack for its credits (the rule the operator’s `packs refund` applies)'),
        params: IdParams,
        body: EmptyBody,
        response: {
          200: PackRefunded,
          ...errorResponses({
            not_found: 'No such pack in this account.',
            request_conflict: 'The pack is refunded already or has recorded visits.',
          }),
        },
      },
    },
    async (request) => {
      const { pack, purchasedBalance } = await packs.refund(request.params.id, requireSession(request.principal).accountId);
      return { id: pack.id, status: 'refunded' as const, credits: pack.credits, purchasedBalance };
    },
  );

  app.get(
    '/account/credits',
    {
      config: SESSION_ONLY,
      schema: { ...WEBSITE('getCreditHistory', 'Purchased credits: balance, reserved, and the ledger’s newest 100 entries'), response: { 200: CreditHistory } },
    },
    async (request) => credits.of(requireSession(request.principal).accountId),
  );
};
