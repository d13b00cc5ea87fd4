import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { networkOf } from '../platform/network.js';
import type { Services } from '../platform/http/services.js';
import { COMMON_ERRORS, IdempotencyHeaders, UuidParams, errorResponses } from '../platform/http/common-schemas.js';
import { CreateLinkBody, Link, LinkCreated, LinkList, ListQuery, PatchLinkBody } from './link-schemas.js';
import { access } from '../platform/http/openapi.js';
import { API_LIMITS } from '../platform/api-limits.js';

const tags = ['links'];

export const linkRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { links, render } = services;

  app.post(
    '/links',
    {
      schema: {
        tags,
        summary: `Create a link (no Authorization header: a ${API_LIMITS.trial.lifetimeDays}-day trial link)`,
        ...access('links:write', { anonymous: true }),
        headers: IdempotencyHeaders,
        body: CreateLinkBody,
        response: { 200: LinkCreated, ...errorResponses(...COMMON_ERRORS) },
      },
    },
    async (request) => links.create(request.principal, request.body, request.headers['idempotency-key'], networkOf(request.ip), render),
  );

  app.get(
    '/links',
    {
      schema: {
        tags,
        summary: `List the account’s links, newest first, ${API_LIMITS.links.pageSize} a page`,
        ...access('links:read'),
        querystring: ListQuery,
        response: { 200: LinkList, ...errorResponses(...COMMON_ERRORS) },
      },
    },
    async (request) => {
      const page = await links.list(request.principal, request.query.offset ?? 0, request.query.search);
      return { links: page.links.map(render), hasMore: page.hasMore };
    },
  );

  app.get(
    '/links/:id',
    {
      config: { trialToken: true },
      schema: {
        tags,
        summary: 'Read a link',
        ...access('links:read', { trialToken: true }),
        params: UuidParams,
        response: { 200: Link, ...errorResponses(...COMMON_ERRORS, 410) },
      },
    },
    async (request) => render(await links.access(request.principal, request.params.id, 'links:read')),
  );

  app.patch(
    '/links/:id',
    {
      schema: {
        tags,
        summary: 'Edit a link or pause/resume it (optimistic concurrency on version)',
        ...access('links:write'),
        params: UuidParams,
        body: PatchLinkBody,
        response: { 200: Link, ...errorResponses(...COMMON_ERRORS) },
      },
    },
    async (request) => {
      const { version, ...changes } = request.body;
      return render(await links.update(request.principal, request.params.id, version, changes));
    },
  );
};
