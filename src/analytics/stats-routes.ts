import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CSV_HEADER } from './csv.js';
import type { StatsService } from './stats-service.js';
import { UuidParams } from '../platform/http/common-schemas.js';
import { errorResponses, ref } from '../platform/http/openapi-responses.js';
import { tags } from '../platform/http/openapi-document.js';
import { LINK_EXPIRED, LINK_NOT_FOUND } from '../links/link-docs.js';
import { Stats, StatsQuery, TagStats, TagStatsQuery } from './stats-schemas.js';
import { API_LIMITS } from '../platform/api-limits.js';

const description = `Counts are redirect requests, not people or confirmed scans; periods in which visits were not recorded are listed as gaps. With a key of the link’s account or the link’s own trial token; no credits.

\`source\` narrows every figure to the short URL or the QR URL, \`bots=exclude\` leaves bots out, \`tz\` puts days, hours, \`from\` and \`to\` on a time zone’s clock (the breakdowns count the UTC days the window overlaps). A bad value of any is 400 \`invalid_request\`.

CSV (text/csv): header \`${CSV_HEADER}\`; one row per day and dimension value (kind "visits"; per day in \`tz\`: source, bot, hour, visitors; per UTC day: country, device, browser, os, referrer), then one row per gap (kind "gap").`;

const requestOf = (query: { days?: number; bots?: 'include' | 'exclude'; tz?: string }) => ({
  days: query.days ?? API_LIMITS.stats.defaultDays,
  bots: query.bots ?? 'include',
  tz: query.tz,
});

export const statsRoutes: FastifyPluginAsyncTypebox<{ stats: StatsService }> = async (app, { stats }) => {
  app.get(
    '/links/:id/stats',
    {
      config: { auth: { scope: 'analytics:read', trialToken: true } },
      schema: {
        operationId: 'getLinkStats',
        tags: tags('analytics'),
        summary: 'Private analytics of a link as JSON or CSV',
        description,
        params: UuidParams,
        querystring: StatsQuery,
        response: {
          200: {
            description: 'The link’s analytics over the last `days` days, as JSON or (`format=csv`) as a CSV attachment.',
            headers: { 'Content-Disposition': { type: 'string', description: 'CSV only: `attachment; filename="…"`.' } },
            content: { 'application/json': { schema: ref(Stats) }, 'text/csv': { schema: { type: 'string' } } },
          },
          ...errorResponses({ not_found: LINK_NOT_FOUND, link_expired: LINK_EXPIRED }),
        },
      },
    },
    async (request, reply) => {
      const query = { ...requestOf(request.query), source: request.query.source };
      if (request.query.format !== 'csv') return stats.json(request.principal, request.params.id, query);
      const csv = await stats.csv(request.principal, request.params.id, query);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${csv.filename}"`).send(csv.body);
    },
  );

  app.get(
    '/links/stats',
    {
      config: { auth: { scope: 'analytics:read' } },
      schema: {
        operationId: 'getTagStats',
        tags: tags('analytics'),
        summary: 'Visits of every link with a tag, per link and by source',
        description:
          'For a campaign: each link of the account whose tags hold `tag` (tags are separated by commas; matched whole, in any case) with its visits in the window, through the short URL (`s`) and the QR URL (`q`), per day and in all, and its unique visitors; the campaign’s unique visitors; and the gaps in recording of any of its links. `days`, `bots` and `tz` as for a link’s stats. With a key of the account (`analytics:read`) or a session; no credits.',
        querystring: TagStatsQuery,
        response: {
          200: { description: 'The tag’s links, their visits and visitors.', content: { 'application/json': { schema: ref(TagStats) } } },
          ...errorResponses({}),
        },
      },
    },
    async (request) => stats.tag(request.principal, request.query.tag, requestOf(request.query)),
  );
};
