import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CSV_HEADER } from './csv.js';
import type { StatsService } from './stats-service.js';
import { access } from '../platform/http/openapi.js';
import { COMMON_ERRORS, UuidParams, errorResponses } from '../platform/http/common-schemas.js';
import { Stats, StatsQuery } from './stats-schemas.js';
import { API_LIMITS } from '../platform/api-limits.js';

const csvDescription = `CSV (text/csv): header \`${CSV_HEADER}\`; one row per UTC day and dimension value (kind "visits"; dimensions source, country, device, browser, referrer, bot), then one row per gap (kind "gap").`;

export const statsRoutes: FastifyPluginAsyncTypebox<{ stats: StatsService }> = async (app, { stats }) => {
  app.get(
    '/links/:id/stats',
    {
      config: { trialToken: true },
      schema: {
        tags: ['analytics'],
        summary: 'Private analytics of a link as JSON or CSV',
        description: csvDescription,
        ...access('analytics:read', { trialToken: true }),
        params: UuidParams,
        querystring: StatsQuery,
        response: {
          200: { content: { 'application/json': { schema: Stats }, 'text/csv': { schema: { type: 'string' } } } },
          ...errorResponses(...COMMON_ERRORS, 410),
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
