import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { isRedirectPath } from '../http/pages.js';

/** The request id header, read from a proxy in front and answered on every API and website answer. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * An incoming id is kept when a proxy's or a client's id could be: short, and of characters that
 * cannot break a log line or a header (UUIDs, nginx's $request_id, base64 ids). Anything else, a
 * repeated header among them (node joins it with ", "), gets an id of our own.
 */
const WELL_FORMED_ID = /^[A-Za-z0-9._:+/=-]{1,64}$/;

/** Fastify's genReqId: the request's own well-formed X-Request-Id, else a random UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && WELL_FORMED_ID.test(given) ? given : crypto.randomUUID();
}

/** Told of each API or website request once it is answered (metrics.ts keeps the latency histogram). */
export type RequestObserver = (route: string, method: string, status: number, seconds: number) => void;

/**
 * Requests that are neither API nor website: the redirects Fastify routes (a percent-encoded slug;
 * most redirects are answered before Fastify and never come here), counted by outcome instead of
 * logged, and the probes and scrapes of health and metrics, which would fill the log.
 */
const UNOBSERVED = /^\/(?:s|q)\/|^\/(?:health|livez|readyz|metrics)(?:\/|$)/;

/** The route pattern a request matched (never its raw URL); undefined when it is not observed. */
function observedRoute(request: FastifyRequest): string | undefined {
  const route = request.routeOptions.url;
  if (route === undefined) return isRedirectPath(request.method, request.url) ? undefined : 'unmatched';
  return UNOBSERVED.test(route) ? undefined : route;
}

/**
 * One log line per API or website request, when it is answered, and its `X-Request-Id` (docs/adr/0077):
 * the id, method, route pattern, status and duration, and nothing that names the client (no address,
 * no header, no query, no body). Fastify's own request logging stays off, and so does every other line
 * this controller could write: errors are logged where they are handled.
 * A log controller rather than hooks, so that Fastify's redirect routes run no hook of it at all.
 */
export class RequestLog extends LogController {
  private observer: RequestObserver | undefined;

  constructor() {
    super({ disableRequestLogging: true });
  }

  /** Also tells `observer` of every request it logs. */
  observeWith(observer: RequestObserver): void {
    this.observer = observer;
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    // Set before any hook runs: answers that hooks refuse (401, 429, 503) carry it too.
    if (observedRoute(request) !== undefined) reply.header(REQUEST_ID_HEADER, request.id);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const route = observedRoute(request);
    if (route === undefined) return;
    const status = reply.statusCode;
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const line = { method: request.method, route, status, ms };
    // An error here is the response's own (the client went away mid-answer), not the handler's.
    if (error) reply.log.warn({ ...line, err: error }, 'request failed while answering');
    else if (status >= 500) reply.log.warn(line, 'request');
    else reply.log.info(line, 'request');
    this.observer?.(route, request.method, status, reply.elapsedTime / 1000);
  }
}
