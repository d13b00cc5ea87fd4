import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CSV_HEADER } from './csv.js';
import type { StatsService } from './stats-service.js';
import { UuidParams } from '../platform/http/common-schemas.js';
import { errorResponses, ref } from '../platform/http/openapi-responses.js';
import { tags } from '../platform/http/openapi-document.js';
import { LINK_EXPIRED, LINK_NOT_FOUND } from '../links/link-docs.js';
import { Stats, StatsQuery } from './stats-schemas.js';
import { API_LIMITS } from '../platform/api-limits.js';

const csvDescription = `Counts are redirect requests, not people or confirmed scans; periods in which visits were not recorded are listed as gaps. With a key of the link’s account or the link’s own trial token; no credits.

CSV (text/csv): header \`${CSV_HEADER}\`; one row per UTC day and dimension value (kind "visits"; dimensions source, country, device, browser, referrer, bot), then one row per gap (kind "gap").`;

export const statsRoutes: FastifyPluginAsyncTypebox<{ stats: StatsService }> = async (app, { stats }) => {
  app.get(
    '/links/:id/stats',
    {
      config: { auth: { scope: 'analytics:read', trialToken: true } },
      schema: {
        operationId: 'getLinkStats',
        tags: tags('analytics'),
        summary: 'Private analytics of a link as JSON or CSV',
        description: csvDescription,
        params: UuidParams,
        querystring: StatsQuery,
        response: {
          200: {
            description: 'The link’s analytics over the last `days` UTC days, as JSON or (`format=csv`) as a CSV attachment.',
            headers: { 'Content-Disposition': { type: 'string', description: 'CSV only: `attachment; filename="…"`.' } },
            content: { 'application/json': { schema: ref(Stats) }, 'text/csv': { schema: { type: 'string' } } },
          },
          ...errorResponses({ not_found: LINK_NOT_FOUND, link_expired: LINK_EXPIRED }),
        },
      },
    },
    async (request, reply) => {
      const { days = API_LIMITS.stats.defaultDays, format = 'json' } = request.query;
      if (format === 'json') return stats.json(request.principal, request.params.id, days);
      const csv = await stats.csv(request.principal, request.params.id, days);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${csv.filename}"`).send(csv.body);
    },
  );
};
