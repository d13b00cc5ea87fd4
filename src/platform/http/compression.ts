import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import { BROTLI_OPTIONS, ENCODINGS, GZIP_OPTIONS } from './encodings.js';

/**
 * API and website answers of 1 KB or more go out compressed when the client accepts it (a page of 50
 * links is about 19 KB of JSON, 3 KB gzipped). @fastify/compress attaches itself to the routes
 * declared after it, so the redirect path, health and metrics, declared before, never pay for it.
 * Routes that compress their own answer off the event loop opt out (`compress: false`).
 */
export async function installCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: [...ENCODINGS],
    brotliOptions: BROTLI_OPTIONS,
    zlibOptions: GZIP_OPTIONS,
  });
}
