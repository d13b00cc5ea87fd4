import negotiate from '@fastify/accept-negotiator';
import zlib from 'node:zlib';

/**
 * The response encodings the service offers and their settings, shared by the compression plugin
 * (compression.ts) and by answers compressed before they reach it (the QR exports, compressed in
 * their render worker). Brotli at quality 4: its default (11) costs tens of milliseconds on every
 * dynamic answer.
 */
export const ENCODINGS = ['br', 'gzip'] as const;
export type Encoding = (typeof ENCODINGS)[number];
export const BROTLI_OPTIONS: zlib.BrotliOptions = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };
export const GZIP_OPTIONS: zlib.ZlibOptions = { level: 6 };

/** `*` and `x-gzip` mean gzip, as @fastify/compress reads them (RFC 7230, 4.2.3). */
const GZIP_ALIAS = /\*|x-gzip/gu;

/** The encoding @fastify/compress would choose for these request headers, or undefined for none. */
export function negotiatedEncoding(headers: Record<string, string | string[] | undefined>): Encoding | undefined {
  const accept = headers['accept-encoding'];
  if (typeof accept !== 'string' || headers['x-no-compression'] !== undefined) return undefined;
  return negotiate(accept.toLowerCase().replace(GZIP_ALIAS, 'gzip'), [...ENCODINGS]) ?? undefined;
}

/** `bytes` compressed in one synchronous call: for a thread other than the event loop's. */
export function encodeSync(bytes: Uint8Array, encoding: Encoding): Buffer {
  return encoding === 'br' ? zlib.brotliCompressSync(bytes, BROTLI_OPTIONS) : zlib.gzipSync(bytes, GZIP_OPTIONS);
}
