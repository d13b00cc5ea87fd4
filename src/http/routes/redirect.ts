import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RedirectResolver } from '../../domain/redirects.js';
import { guardRedirect } from '../redirect-guard.js';

const page = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
  `<title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">` +
  `<h1>${title}</h1><p>${text}</p></body></html>`;

const NOT_FOUND_PAGE = page('Link not found', 'This short link does not exist or is not active right now.');
const EXPIRED_PAGE = page('Link expired', 'This trial link has expired and no longer redirects.');

/**
 * The hot path: /s/{slug} and /q/{slug}. No hooks, no schema, no database write; the lookup comes from
 * the resolver's in-memory cache. Every answer is private, no-store, so each visit reaches us.
 */
export function redirectRoutes(app: FastifyInstance, resolver: RedirectResolver): void {
  const handler = async (request: FastifyRequest<{ Params: { slug: string } }>, reply: FastifyReply) => {
    if (guardRedirect(request, reply)) return reply;
    const resolution = await resolver.resolve(request.params.slug);
    reply.header('cache-control', 'private, no-store');
    if (resolution.kind === 'redirect') return reply.code(302).header('location', resolution.target).send();
    reply.type('text/html; charset=utf-8');
    return resolution.kind === 'expired' ? reply.code(410).send(EXPIRED_PAGE) : reply.code(404).send(NOT_FOUND_PAGE);
  };
  app.get('/s/:slug', { schema: { hide: true } }, handler);
  app.get('/q/:slug', { schema: { hide: true } }, handler);
}
