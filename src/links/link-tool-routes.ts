import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../platform/http/services.js';
import { UuidParams } from '../platform/http/common-schemas.js';
import { GENERAL, errorResponses, ok } from '../platform/http/openapi-responses.js';
import { tags } from '../platform/http/openapi-document.js';
import { API_LIMITS } from '../platform/api-limits.js';
import { AliasAvailability, AliasCheckAnswer, AliasCheckBody, AliasParams, ClaimLinkBody, Link, TagList } from './link-schemas.js';
import { linksCsv } from './links-csv.js';

const { prices, trial } = API_LIMITS;

/** What the website's links page and its onboarding use beside the basic link operations. */
export const linkToolRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { links, render } = services;

  app.post(
    '/links/:id/claim',
    {
      config: { auth: { scope: 'links:write' } },
      schema: {
        operationId: 'claimTrialLink',
        tags: tags('links'),
        summary: 'Keep a trial link: it becomes a link of the account, with no expiry',
        description: `The body's \`trialToken\` proves the caller made the trial link. The link counts as a new link of the account: one of the month's free links while they last, then ${prices.extraLinkCredits} purchased credits when \`maxCredits\` allows it (402 \`link_allowance_required\` otherwise, as for creation). Its price is a \`link.create\` quote's (POST /quotes, whose \`freeLinks\` says how many claims are still free): ask it first and send \`maxCredits\` once paying is accepted, so no claim is refused. Idempotent: claiming a link the account already holds returns it and spends nothing. Afterwards the trial token no longer reads the link; its short URL, QR URL, slug and visits stay. A trial link lives ${trial.lifetimeDays} days: an expired one cannot be kept.`,
        params: UuidParams,
        body: ClaimLinkBody,
        response: {
          200: ok(Link, 'The link, now the account’s.'),
          ...errorResponses({
            invalid_request: `${GENERAL.invalid_request}`,
            not_found: 'No trial link has this id and token, or another account keeps it already.',
            link_expired: 'The trial link has expired.',
            request_conflict: 'The trial link was disabled by the service.',
          }),
        },
      },
    },
    async (request) => render(await links.claim(request.principal, request.params.id, request.body.trialToken, request.body.maxCredits ?? 0)),
  );

  app.get(
    '/aliases/:alias',
    {
      config: { auth: { scope: 'links:write' } },
      schema: {
        operationId: 'checkAlias',
        tags: tags('links'),
        summary: 'Whether an alias is free, with a free one like it when it is not',
        description: 'A slug is never reused: an alias of a deleted or expired link stays taken. The answer may be stale a moment later; creation decides.',
        params: AliasParams,
        response: { 200: ok(AliasAvailability, 'Whether the alias is free.'), ...errorResponses({}) },
      },
    },
    async (request) => links.aliasAvailability(request.principal, request.params.alias),
  );

  app.post(
    '/aliases/check',
    {
      config: { auth: { scope: 'links:write' } },
      schema: {
        operationId: 'checkAliases',
        tags: tags('links'),
        summary: `Which of up to ${API_LIMITS.links.importMaxRows} aliases are free; nothing is created or spent`,
        description:
          'A read in one request where `GET /aliases/{alias}` would take one per alias (the website checks an import’s rows with it). The same rule: a slug is never reused, and the answer may be stale a moment later; creation decides. An alias asked twice is answered twice.',
        body: AliasCheckBody,
        response: { 200: ok(AliasCheckAnswer, 'Each alias with whether it is free.'), ...errorResponses({}) },
      },
    },
    async (request) => ({ aliases: await links.aliasesAvailability(request.principal, request.body.aliases) }),
  );

  app.get(
    '/tags',
    {
      config: { auth: { scope: 'links:read' } },
      schema: {
        operationId: 'listTags',
        tags: tags('links'),
        summary: 'The tags of the account’s links',
        description: 'A link’s `tags` are separated by commas; each tag is listed once (case ignored), alphabetical.',
        response: { 200: ok(TagList, 'The tags.'), ...errorResponses({}) },
      },
    },
    async (request) => ({ tags: await links.tags(request.principal) }),
  );

  app.get(
    '/links/export',
    {
      config: { auth: { scope: 'links:read' } },
      schema: {
        operationId: 'exportLinks',
        tags: tags('links'),
        summary: 'Every link of the account as CSV, newest first',
        description: `Columns: title, slug, short_url, qr_url, destination, tags, status, visits, created (ISO 8601, UTC). At most ${API_LIMITS.links.exportMax.toLocaleString('en')} links. A cell starting with =, +, -, @ or a tab is prefixed with ' so that spreadsheets do not run it.`,
        response: {
          200: {
            description: 'A CSV attachment.',
            headers: { 'Content-Disposition': { type: 'string', description: '`attachment; filename="links.csv"`' } },
            content: { 'text/csv': { schema: { type: 'string' } } },
          },
          ...errorResponses({}),
        },
      },
    },
    async (request, reply) => {
      const body = linksCsv((await links.all(request.principal)).map(render));
      return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="links.csv"').send(body);
    },
  );
};
