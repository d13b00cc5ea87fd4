import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import zlib from 'node:zlib';

/**
 * API and website answers of 1 KB or more go out compressed when the client accepts it (a page of 50
 * links is about 19 KB of JSON, 3 KB gzipped). @fastify/compress attaches itself to the routes
 * declared after it, so the redirect path, health and metrics, declared before, never pay for it.
 * Brotli at quality 4: its default (11) costs tens of milliseconds on every dynamic answer.
 */
export async function installCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
  });
}
