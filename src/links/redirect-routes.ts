import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Source } from '../analytics/ports.js';
import type { FastRedirect } from './fast-redirect.js';

type SlugRequest = FastifyRequest<{ Params: { slug: string } }>;

/**
 * /s/{slug} and /q/{slug} as Fastify routes, for the forms the fast path leaves to the router
 * (a percent-encoded slug, mostly): the router decodes the slug, then the raw response gets the very
 * same answer as on the fast path. Fastify serves HEAD through these GET routes.
 */
export function redirectRoutes(app: FastifyInstance, redirects: FastRedirect): void {
  const handlerFor = (source: Source) => (request: SlugRequest, reply: FastifyReply) => {
    reply.hijack();
    redirects.serve(request.raw, reply.raw, request.params.slug, source, request.ip ?? '');
  };
  app.get('/s/:slug', { schema: { hide: true } }, handlerFor('s'));
  app.get('/q/:slug', { schema: { hide: true } }, handlerFor('q'));
}
