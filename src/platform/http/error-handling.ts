import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors.js';
import { isUnavailable } from '../database/sql-errors.js';
import { NOT_FOUND_PAGE, isRedirectPath } from './pages.js';
import { REDIRECT_CACHE_CONTROL } from './headers.js';

/** Seconds a client should wait after a 503 caused by storage trouble, and after any 503 that names no wait of its own. */
export const UNAVAILABLE_RETRY_SECONDS = 5;

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Every 503 carries Retry-After (CONTRACT.md): one whose cause names no wait of its own (an AppError
 * thrown without one, such as random slugs used up) gets the storage wait.
 */
const retryAfter = (code: ErrorCode, seconds: number | undefined): number | undefined =>
  seconds ?? (ERROR_STATUS[code] === 503 ? UNAVAILABLE_RETRY_SECONDS : undefined);

export function sendError(reply: FastifyReply, code: ErrorCode, retryAfterSeconds?: number): FastifyReply {
  const seconds = retryAfter(code, retryAfterSeconds);
  if (seconds !== undefined) reply.header('retry-after', String(seconds));
  return reply.code(ERROR_STATUS[code]).type(JSON_TYPE).send({ error: code });
}

/** sendError on a raw node:http response (the redirect fast path): the same status, headers and body. */
export function writeError(res: ServerResponse, code: ErrorCode, retryAfterSeconds?: number): void {
  const body = `{"error":"${code}"}`;
  const length = String(body.length);
  const seconds = retryAfter(code, retryAfterSeconds);
  res.writeHead(
    ERROR_STATUS[code],
    seconds === undefined
      ? { 'content-type': JSON_TYPE, 'content-length': length }
      : { 'retry-after': String(seconds), 'content-type': JSON_TYPE, 'content-length': length },
  );
  res.end(body);
}

/** A failure answered with 503: storage trouble is expected now and then (a warning), anything else is a bug. */
export function logFailure(log: FastifyBaseLogger, error: unknown): void {
  if (isUnavailable(error)) log.warn({ code: (error as { code?: string }).code }, 'storage unavailable');
  else log.error({ err: error }, 'unexpected error');
}

/**
 * Every failure leaves as {"error": value} with a status of the catalog. Client mistakes that Fastify
 * itself detects (bad JSON, wrong content type, oversized body, schema violations) are 400
 * invalid_request; storage trouble and anything unexpected is 503 links_unavailable, never a 500.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) return sendError(reply, error.code, error.retryAfterSeconds);
    const status = error.statusCode ?? 500;
    if (error.validation || (status >= 400 && status < 500)) {
      return status === 404 ? sendError(reply, 'not_found') : sendError(reply, 'invalid_request');
    }
    logFailure(request.log, error);
    return sendError(reply, 'links_unavailable', UNAVAILABLE_RETRY_SECONDS);
  });
  app.setNotFoundHandler((request, reply) => {
    if (!isRedirectPath(request.method, request.url)) return sendError(reply, 'not_found');
    return sendNotFoundPage(reply);
  });
}

const sendNotFoundPage = (reply: FastifyReply): FastifyReply =>
  reply.code(404).header('cache-control', REDIRECT_CACHE_CONTROL).type('text/html; charset=utf-8').send(NOT_FOUND_PAGE);

/**
 * Malformed URLs (a bad percent-encoding, a segment over the router's length limit) are rejected by
 * the router before any handler runs: 400 invalid_request, but a mangled short link is a page for
 * the person who followed it, like any short link that leads nowhere.
 */
export function frameworkErrors(_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (isRedirectPath(request.method, request.url)) void sendNotFoundPage(reply);
  else void sendError(reply, 'invalid_request');
}

/** HTTP that cannot even be parsed (bad request line, oversized headers) gets the same body on the socket. */
export function clientErrorHandler(error: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = '{"error":"invalid_request"}';
  socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
}
