import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { networkOf } from '../platform/network.js';
import type { Services } from '../platform/http/services.js';
import { IdempotencyHeaders, UuidParams } from '../platform/http/common-schemas.js';
import { GENERAL, errorResponses, ok } from '../platform/http/openapi-responses.js';
import { tags } from '../platform/http/openapi-document.js';
import { CreateLinkBody, Link, LinkCreated, LinkList, ListQuery, PatchLinkBody } from './link-schemas.js';
import { API_LIMITS } from '../platform/api-limits.js';
import { CREATE_LINK_DESCRIPTION, CREATE_LINK_ERRORS, LINK_NOT_FOUND, LINK_EXPIRED, TARGET_RULE } from './link-docs.js';

export const linkRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { links, render } = services;

  app.post(
    '/links',
    {
      config: { auth: { scope: 'links:write', anonymous: true } },
      schema: {
        operationId: 'createLink',
        tags: tags('links'),
        summary: `Create a link (no Authorization header: a ${API_LIMITS.trial.lifetimeDays}-day trial link)`,
        description: CREATE_LINK_DESCRIPTION,
        headers: IdempotencyHeaders,
        body: CreateLinkBody,
        response: { 200: ok(LinkCreated, 'The saved link; a trial link also has its `trialToken`.'), ...errorResponses(CREATE_LINK_ERRORS) },
      },
    },
    async (request) => links.create(request.principal, request.body, request.headers['idempotency-key'], networkOf(request.ip), render),
  );

  app.get(
    '/links',
    {
      config: { auth: { scope: 'links:read' } },
      schema: {
        operationId: 'listLinks',
        tags: tags('links'),
        summary: `List the account’s links, newest first unless sorted otherwise, ${API_LIMITS.links.pageSize} a page`,
        description:
          '`offset` skips that many links; `hasMore` says whether another page follows. `search` keeps the links whose slug, target, title or tags contain it, ignoring case (`%` and `_` are plain characters); `tag` keeps the links carrying that tag (tags are separated by commas; case ignored); `sort` orders them.',
        querystring: ListQuery,
        response: { 200: ok(LinkList, 'A page of the account’s links.'), ...errorResponses({}) },
      },
    },
    async (request) => {
      const { offset, search, tag, sort } = request.query;
      const page = await links.list(request.principal, offset ?? 0, search, { tag, sort });
      return { links: page.links.map(render), hasMore: page.hasMore };
    },
  );

  app.get(
    '/links/:id',
    {
      config: { auth: { scope: 'links:read', trialToken: true } },
      schema: {
        operationId: 'getLink',
        tags: tags('links'),
        summary: 'Read a link',
        description: 'With a key of the link’s account, or with the link’s own trial token. Reads never return `trialToken`.',
        params: UuidParams,
        response: { 200: ok(Link, 'The link.'), ...errorResponses({ not_found: LINK_NOT_FOUND, link_expired: LINK_EXPIRED }) },
      },
    },
    async (request) => render(await links.access(request.principal, request.params.id, 'links:read')),
  );

  app.patch(
    '/links/:id',
    {
      config: { auth: { scope: 'links:write' } },
      schema: {
        operationId: 'updateLink',
        tags: tags('links'),
        summary: 'Edit a link or pause/resume it (optimistic concurrency on version)',
        description:
          'Send the `version` of the last read; omitted fields keep their values, and `version` rises by one on every successful edit. Neither URL changes, and no credits are spent. Only an account’s own links, active or paused, can be edited.',
        params: UuidParams,
        body: PatchLinkBody,
        response: {
          200: ok(Link, 'The link as edited.'),
          ...errorResponses({
            invalid_request: `${GENERAL.invalid_request} Also ${TARGET_RULE}`,
            not_found: 'No link of the key’s account has this id.',
            link_changed: '`version` is not the link’s current version: read it again.',
            request_conflict: 'The link is suspended or deleted.',
          }),
        },
      },
    },
    async (request) => {
      const { version, ...changes } = request.body;
      return render(await links.update(request.principal, request.params.id, version, changes));
    },
  );
};
