import type { IncomingMessage } from 'node:http';

/**
 * Behind an edge proxy, trust exactly one hop: the client is the address our edge appended last to
 * X-Forwarded-For; anything further left was written by the client and could be forged. This is
 * Fastify's `trustProxy` for the whole app.
 */
export const trustOneHop = (_address: string, hop: number): boolean => hop < 1;

const SPACE = 32;
const TAB = 9;
const COMMA = 44;

/**
 * The client address of a raw request, exactly as Fastify's `request.ip` reads it with `trustOneHop`
 * (@fastify/proxy-addr over @fastify/forwarded): the socket's address, or with a trusted proxy the last
 * non-empty entry of X-Forwarded-For. The redirect fast path runs before Fastify, so it reads it here,
 * scanning from the end without splitting the header.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string | undefined {
  const socketAddress = req.socket.remoteAddress;
  if (!trustProxy) return socketAddress;
  const header = req.headers['x-forwarded-for'];
  if (!header || typeof header !== 'string') return socketAddress;
  if (header.indexOf(',') === -1) {
    const remote = header.trim();
    return remote.length > 0 ? remote : socketAddress;
  }
  // @fastify/forwarded trims only spaces and tabs around entries of a list (a lone entry is trim()med).
  let end = header.length;
  let start = end;
  for (let i = end - 1; i >= 0; i--) {
    const char = header.charCodeAt(i);
    if (char === SPACE || char === TAB) {
      if (start === end) start = end = i;
    } else if (char === COMMA) {
      if (start !== end) return header.slice(start, end);
      start = end = i;
    } else {
      start = i;
    }
  }
  return start !== end ? header.slice(start, end) : socketAddress;
}
