import fs from 'node:fs';
import Fastify from 'fastify';

/**
 * A reference point, not a baseline to beat: a minimal Fastify app answering the same redirects from
 * a Map, so the benchmark shows what the framework's request handling costs on this machine. An
 * empty reply gets Content-Length: 0, as the service's redirects do.
 */
const [slugFile, port] = process.argv.slice(2) as [string, string];
const targets = new Map<string, string>();
for (const slug of fs.readFileSync(slugFile, 'utf8').split('\n').filter(Boolean)) targets.set(slug, `https://example.org/landing/${slug}?utm_source=poster`);

const app = Fastify({ logger: false });
for (const path of ['/s/:slug', '/q/:slug']) {
  app.get<{ Params: { slug: string } }>(path, (request, reply) => {
    const target = targets.get(request.params.slug);
    if (target) void reply.code(302).header('location', target).header('cache-control', 'private, no-store').send();
    else
      void reply.code(404).header('cache-control', 'private, no-store').type('text/html; charset=utf-8').send('<!doctype html><title>Link not found</title>');
  });
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
