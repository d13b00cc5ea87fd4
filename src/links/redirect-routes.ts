import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Source } from '../analytics/ports.js';
import type { FastRedirect } from './fast-redirect.js';
import { REDIRECT_CACHE_CONTROL } from '../platform/http/headers.js';

type SlugRequest = FastifyRequest<{ Params: { slug: string } }>;

/** The preview page of a slug (preview.ts), and whether a link was found. */
export type Preview = (slug: string, source: Source) => Promise<{ found: boolean; html: string }>;

/**
 * `/s/{slug}+` and `/q/{slug}+` answer the link's preview: no redirect, no visit (CONTRACT.md).
 * /s/{slug} and /q/{slug} as Fastify routes, for the forms the fast path leaves to the router
 * (a percent-encoded slug, mostly): the router decodes the slug, then the raw response gets the very
 * same answer as on the fast path. Fastify serves HEAD through these GET routes.
 */
export function redirectRoutes(app: FastifyInstance, redirects: FastRedirect, preview: Preview): void {
  const handlerFor = (source: Source) => async (request: SlugRequest, reply: FastifyReply) => {
    const { slug } = request.params;
    if (slug.length > 1 && slug.endsWith('+')) {
      const page = await preview(slug.slice(0, -1), source);
      return reply
        .code(page.found ? 200 : 404)
        .header('cache-control', REDIRECT_CACHE_CONTROL)
        .header('x-robots-tag', 'noindex')
        .type('text/html; charset=utf-8')
        .send(page.html);
    }
    reply.hijack();
    redirects.serve(request.raw, reply.raw, slug, source, request.ip ?? '');
  };
  app.get('/s/:slug', { schema: { hide: true } }, handlerFor('s'));
  app.get('/q/:slug', { schema: { hide: true } }, handlerFor('q'));
}
