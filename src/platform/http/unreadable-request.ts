import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { clientErrorHandler, writeError } from './error-handling.js';

/**
 * Header lines a request may carry (the server's maxHeadersCount, node's own default made explicit).
 * node:http keeps at most this many and silently drops the rest, so a request that reaches it is
 * refused: a header past the limit (an Authorization, an X-Forwarded-For) would be unseen, not absent.
 */
export const MAX_REQUEST_HEADERS = 1000;

// Headers a request must not carry twice: node keeps the first Host, Authorization and Content-Type
// and joins the others with ", ", so a second line would be silently ignored or silently merged.
const HOST = 1;
const AUTHORIZATION = 2;
const TRIAL_TOKEN = 4;
const IDEMPOTENCY_KEY = 8;
const CONTENT_TYPE = 16;
const FORWARDED_FOR = 32;

const UPPER_A = 65;
const UPPER_Z = 90;

/** `name` is `lower` in any case; the lengths are equal. Compared in place: no lower-cased copy per header. */
function named(name: string, lower: string): boolean {
  if (name === lower) return true;
  for (let i = 0; i < lower.length; i++) {
    const char = name.charCodeAt(i);
    if ((char >= UPPER_A && char <= UPPER_Z ? char | 32 : char) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** Which of the single-valued headers `name` is (its bit), or 0; by length first, which rules out nearly every name. */
function singleValued(name: string): number {
  switch (name.length) {
    case 4:
      return named(name, 'host') ? HOST : 0;
    case 12:
      return named(name, 'content-type') ? CONTENT_TYPE : 0;
    case 13:
      return named(name, 'authorization') ? AUTHORIZATION : 0;
    case 15:
      return named(name, 'idempotency-key') ? IDEMPOTENCY_KEY : named(name, 'x-forwarded-for') ? FORWARDED_FOR : 0;
    case 21:
      return named(name, 'x-service-trial-token') ? TRIAL_TOKEN : 0;
    default:
      return 0;
  }
}

/**
 * Whether a request's head cannot be read at all: as many header lines as node keeps (the rest were
 * dropped), or HTTP/1.1 without Host (RFC 9112 section 3.2). Constant time, before every request,
 * redirects included (node has already made `req.headers` of an HTTP/1.1 request, for its Expect check).
 */
export function unreadableHead(req: IncomingMessage): boolean {
  if (req.rawHeaders.length >= MAX_REQUEST_HEADERS * 2) return true;
  return req.httpVersionMinor === 1 && req.httpVersionMajor === 1 && req.headers.host === undefined;
}

const ALL = HOST | AUTHORIZATION | TRIAL_TOKEN | IDEMPOTENCY_KEY | CONTENT_TYPE | FORWARDED_FOR;

/**
 * Whether the request repeats a header that must be single: Host, Authorization,
 * X-Service-Trial-Token, Idempotency-Key, Content-Type and, behind a trusted proxy (whose entry is
 * the last of the one list), X-Forwarded-For. One pass over the raw header names, mostly a length
 * compare; for the API and the router (the redirect fast path reads none of them but X-Forwarded-For:
 * forwardedTwice).
 */
export function repeatedHeader(req: IncomingMessage, trustProxy: boolean): boolean {
  return repeated(req.rawHeaders, trustProxy ? ALL : ALL & ~FORWARDED_FOR);
}

/** X-Forwarded-For sent on two lines, which node joins with ", ": so only a list is looked into. */
export function forwardedTwice(req: IncomingMessage): boolean {
  const forwarded = req.headers['x-forwarded-for'];
  return forwarded !== undefined && forwarded.includes(',') && repeated(req.rawHeaders, FORWARDED_FOR);
}

function repeated(raw: string[], checked: number): boolean {
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const header = singleValued(raw[i]!) & checked;
    if (header === 0) continue;
    if ((seen & header) !== 0) return true;
    seen |= header;
  }
  return false;
}

/** The answer to an unreadable request: 400 invalid_request, and the connection is not reused. */
export function refuseUnreadable(res: ServerResponse): void {
  res.setHeader('connection', 'close');
  writeError(res, 'invalid_request');
}

/**
 * What node:http answers itself, with an empty body, unless told otherwise: an Expect other than
 * 100-continue (417) and CONNECT (the socket is dropped). Both get 400 invalid_request with the error
 * body here. (A missing Host, node's third, is refused by unreadableHead: the server is made with
 * requireHostHeader off.)
 */
export function answerWhatNodeWould(server: Server): void {
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => refuseUnreadable(res));
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    // node hands the socket over without its own error listener.
    socket.on('error', () => socket.destroy());
    clientErrorHandler(new Error('CONNECT is not served'), socket);
  });
}
