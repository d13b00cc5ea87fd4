import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { LinkRef, Source } from '../analytics/ports.js';
import type { RedirectResolver, Resolution } from './redirects.js';
import type { Clock } from '../platform/time.js';
import { clientAddress } from '../platform/http/client-address.js';
import { RedirectCounts, type RedirectOutcomes } from '../platform/operations/counts.js';
import { casePage, type PageCase } from '../platform/http/pages.js';
import { REDIRECT_CACHE_CONTROL as CACHE_CONTROL } from '../platform/http/headers.js';
import { logFailure, UNAVAILABLE_RETRY_SECONDS, writeError } from '../platform/http/error-handling.js';
import type { RedirectGuard } from '../limits/redirect-guard.js';
import { forwardedTwice, refuseUnreadable } from '../platform/http/unreadable-request.js';

/**
 * Told about every GET redirect of an active link (HEAD is not a visit), with the request's headers
 * and client address, and the time of the answer. Must not block, and must not keep `headers`.
 */
export type VisitSink = (headers: IncomingHttpHeaders, address: string, link: LinkRef, source: Source, time: number) => void;

/** The router's limit on a path parameter (app.ts); a longer segment is left to the router to refuse. */
export const MAX_PARAM_LENGTH = 16 * 1024;

const SLASH = 47;
const PERCENT = 37;
const QUESTION = 63;
const HASH = 35;
const PLUS = 43;
const LETTER_S = 115;
const LETTER_Q = 113;

/** What a slug that does not redirect answers: 410 for an expired trial link, else 404, each with a page that says which case it is. */
const PAGES: Record<PageCase, { status: number; html: (shortUrl: string | undefined) => string }> = {
  expired: { status: 410, html: casePage('expired') },
  paused: { status: 404, html: casePage('paused') },
  suspended: { status: 404, html: casePage('suspended') },
  missing: { status: 404, html: casePage('missing') },
};

/** How long a kept-alive connection may idle between requests (app.ts sets it on the server). */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Where the slug of `/s/<slug>` or `/q/<slug>` ends (at the end, or at `?` or `#`, where the router
 * also stops), or -1 for anything the fast path leaves to Fastify: other paths, a slash or a
 * percent-encoding in the segment (the router decodes those), an empty or over-long segment, and a
 * preview (`/s/<slug>+`, which never redirects: redirect-routes.ts).
 */
export function slugEnd(url: string): number {
  const prefix = url.charCodeAt(1);
  if (url.charCodeAt(0) !== SLASH || (prefix !== LETTER_S && prefix !== LETTER_Q) || url.charCodeAt(2) !== SLASH) return -1;
  let end = 3;
  for (; end < url.length; end++) {
    const char = url.charCodeAt(end);
    if (char === QUESTION || char === HASH) break;
    if (char === SLASH || char === PERCENT) return -1;
  }
  return end === 3 || end - 3 > MAX_PARAM_LENGTH || url.charCodeAt(end - 1) === PLUS ? -1 : end;
}

export interface RedirectDeps {
  resolver: RedirectResolver;
  /** Read once per answer: the flood guard, the cache's expiry checks and the visit share the reading. */
  now: Clock;
  guard?: RedirectGuard;
  visits?: VisitSink;
  /** Where failures are logged (the app's logger: the fast path has no request logger). */
  log: FastifyBaseLogger;
  trustProxy: boolean;
  /** Set on the socket of an answer that could not be written out at once (app.ts, httpServer). */
  idleSocketTimeoutMs: number;
  /** PUBLIC_URL: the pages of links that do not redirect offer to report `<publicUrl>/s/<slug>`. */
  publicUrl?: string;
}

/**
 * The redirect answer, on raw node:http objects: /s/{slug} and /q/{slug} are answered here before
 * Fastify sees them (docs/adr/0017), and Fastify's routes for the rare forms the fast path leaves to
 * the router call `serve` too. A cache hit is answered synchronously; the visit is only counted in
 * memory; every answer is private, no-store, so each visit reaches us.
 */
export class FastRedirect {
  private closing = false;
  /** Answers by path and outcome, read by /metrics (metrics.ts). */
  readonly counts = new RedirectCounts();

  constructor(private readonly deps: RedirectDeps) {}

  /** From now on answers carry Connection: close, as Fastify's do while it closes. */
  close(): void {
    this.closing = true;
  }

  /** The server's first look at a request: answers it and returns true, or returns false for Fastify. */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const url = req.url ?? '';
    const end = slugEnd(url);
    if (end === -1) return false;
    // Two X-Forwarded-For lines would make the client address a guess (unreadable-request.ts).
    if (this.deps.trustProxy && forwardedTwice(req)) {
      refuseUnreadable(res);
      return true;
    }
    if (this.closing) res.setHeader('Connection', 'close');
    const source: Source = url.charCodeAt(1) === LETTER_S ? 's' : 'q';
    // The address is undefined once the client's socket is gone; such a request is not worth a 503.
    this.respond(req, res, url.slice(3, end), source, clientAddress(req, this.deps.trustProxy) ?? '');
    return true;
  }

  /** The one implementation of the redirect answer (GET and HEAD), whoever routed the request. */
  serve(req: IncomingMessage, res: ServerResponse, slug: string, source: Source, address: string): void {
    this.respond(req, res, slug, source, address);
  }

  private respond(req: IncomingMessage, res: ServerResponse, slug: string, source: Source, address: string): void {
    const { guard, resolver, now } = this.deps;
    try {
      const time = now();
      if (guard !== undefined && guard.refuse(address, res, time)) {
        if (res.statusCode === 429) this.outcomes(source).rateLimited++;
        else this.outcomes(source).shed++;
        return this.sent(req, res);
      }
      const cached = resolver.peek(slug, time);
      if (cached !== undefined) return this.answer(req, res, cached, source, address, time, slug);
    } catch (error) {
      return this.fail(req, res, error, source);
    }
    // A miss asks the database: the closure and promise are the price of a miss, not of a visit.
    resolver
      .resolve(slug)
      .then((resolution) => this.answer(req, res, resolution, source, address, now(), slug))
      .catch((error: unknown) => this.fail(req, res, error, source));
  }

  private answer(req: IncomingMessage, res: ServerResponse, resolution: Resolution, source: Source, address: string, time: number, slug: string): void {
    const counts = this.outcomes(source);
    if (resolution.kind === 'redirect') {
      counts.redirected++;
      if (this.deps.visits !== undefined && req.method === 'GET') {
        this.deps.visits(req.headers, address, resolution.link, source, time);
      }
      // writeHead checks the target as a header value: a stored target it refuses throws, and fail() answers 503.
      res.writeHead(302, { 'cache-control': CACHE_CONTROL, location: resolution.target, 'content-length': '0' });
      res.end();
      return this.sent(req, res);
    }
    if (resolution.kind === 'expired') counts.expired++;
    else counts.notFound++;
    // For HEAD, node:http sends the headers (with the page's length) and drops the body.
    const page = PAGES[resolution.kind];
    const { publicUrl } = this.deps;
    const body = page.html(publicUrl === undefined ? undefined : `${publicUrl}/${source}/${slug}`);
    res.writeHead(page.status, { 'cache-control': CACHE_CONTROL, 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    this.sent(req, res);
  }

  /**
   * After an answer: one the socket could not take at once (a client that does not read, or answers
   * queued behind an earlier one) gets the idle timeout, so a stalled client cannot hold the socket.
   * Written out, as almost every answer is, it needs none: node's keep-alive timeout follows.
   */
  private sent(req: IncomingMessage, res: ServerResponse): void {
    // req.socket: an answer queued behind an earlier one has no socket of its own yet.
    if (res.writableLength > 0) req.socket.setTimeout(this.deps.idleSocketTimeoutMs);
  }

  private outcomes(source: Source): RedirectOutcomes {
    return source === 's' ? this.counts.s : this.counts.q;
  }

  /** What Fastify's error handler does with a thrown error: log it, answer 503 links_unavailable. */
  private fail(req: IncomingMessage, res: ServerResponse, error: unknown, source: Source): void {
    this.outcomes(source).failed++;
    logFailure(this.deps.log, error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    writeError(res, 'links_unavailable', UNAVAILABLE_RETRY_SECONDS);
    this.sent(req, res);
  }
}
