import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import { BROTLI_OPTIONS, ENCODINGS, GZIP_OPTIONS } from './encodings.js';

/**
 * API and website answers of 1 KB or more go out compressed when the client accepts it (a page of 50
 * links is about 19 KB of JSON, 3 KB gzipped). @fastify/compress attaches itself to the routes
 * declared after it, so the redirect path, health and metrics, declared before, never pay for it.
 * Routes that compress their own answer off the event loop opt out (`compress: false`).
 *
 * Answers up to SYNC_BYTES are compressed in one call on the event loop (a 90-day stats answer of
 * about 15 KB in a few tenths of a millisecond); larger ones through a stream, on libuv's threads. The
 * plugin's default for two cores (8 KB) sent the stats answers through a stream, whose setup, thread
 * hops and several writes cost more than the compression: 1 to 3 ms a read (docs/benchmarks.md).
 */
const SYNC_BYTES = 64 * 1024;

export async function installCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    threshold: 1024,
    syncThreshold: SYNC_BYTES,
    encodings: [...ENCODINGS],
    brotliOptions: BROTLI_OPTIONS,
    zlibOptions: GZIP_OPTIONS,
  });
}
