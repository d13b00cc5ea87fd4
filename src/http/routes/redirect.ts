import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Source } from '../../domain/analytics/ports.js';
import type { RedirectResolver, Resolution } from '../../domain/redirects.js';
import { EXPIRED_PAGE, NOT_FOUND_PAGE } from '../pages.js';
import { guardRedirect } from '../redirect-guard.js';

/** Told about every GET redirect of an active link (HEAD is not a visit). Must not block. */
export type VisitSink = (request: FastifyRequest, linkId: string, accountId: string | null, source: Source) => void;

type SlugRequest = FastifyRequest<{ Params: { slug: string } }>;

/**
 * The hot path: /s/{slug} and /q/{slug}. No hooks, no schema, no database write; the lookup comes from
 * the resolver's in-memory cache, synchronously when it holds the slug (no promise per request), and
 * the visit is only counted in memory. Every answer is private, no-store, so each visit reaches us.
 */
export function redirectRoutes(app: FastifyInstance, resolver: RedirectResolver, visits?: VisitSink): void {
  const answer = (request: SlugRequest, reply: FastifyReply, resolution: Resolution, source: Source): void => {
    reply.header('cache-control', 'private, no-store');
    if (resolution.kind === 'redirect') {
      // Fastify serves HEAD through this GET route: a HEAD request is answered but is not a visit.
      if (visits && request.method === 'GET') visits(request, resolution.linkId, resolution.accountId, source);
      void reply.code(302).header('location', resolution.target).send();
      return;
    }
    reply.type('text/html; charset=utf-8');
    void (resolution.kind === 'expired' ? reply.code(410).send(EXPIRED_PAGE) : reply.code(404).send(NOT_FOUND_PAGE));
  };
  const handlerFor = (source: Source) => (request: SlugRequest, reply: FastifyReply) => {
    if (guardRedirect(request, reply)) return;
    const cached = resolver.peek(request.params.slug);
    if (cached) return answer(request, reply, cached, source);
    return resolver.resolve(request.params.slug).then((resolution) => answer(request, reply, resolution, source));
  };
  app.get('/s/:slug', { schema: { hide: true } }, handlerFor('s'));
  app.get('/q/:slug', { schema: { hide: true } }, handlerFor('q'));
}
