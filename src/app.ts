import crypto from 'node:crypto';
import http from 'node:http';
import { _, Ajv, type KeywordCxt } from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config, Protection } from './platform/config.js';
import { API_LIMITS } from './platform/api-limits.js';
import { IdempotencyGuard, PENDING_CLAIM_TTL_MS } from './platform/idempotency/idempotency-guard.js';
import type { RandomBytes } from './links/slugs.js';
import { days, type Clock } from './platform/time.js';
import { EventBus } from './platform/events.js';
import { setUpLinks } from './links/links-setup.js';
import { setUpBilling } from './billing/billing-setup.js';
import { setUpSafety } from './safety/safety-setup.js';
import { VERSION } from './platform/version.js';
import { setUpAnalytics } from './analytics/analytics-setup.js';
import { CODE_UNIT_LENGTHS } from './platform/http/common-schemas.js';
import { refusingMalformedQuery, withCanonicalUuids } from './platform/http/canonical-input.js';
import { trustOneHop } from './platform/http/client-address.js';
import { RefusalCounts } from './platform/operations/counts.js';
import { FastRedirect, KEEP_ALIVE_TIMEOUT_MS, MAX_PARAM_LENGTH } from './links/fast-redirect.js';
import { healthRoutes } from './platform/operations/health.js';
import { installMetrics } from './platform/operations/metrics.js';
import { RequestLog, requestId } from './platform/operations/request-log.js';
import { installAuth } from './platform/auth/auth-plugin.js';
import { apiKeyResolver } from './platform/auth/api-key-resolver.js';
import { trialTokenResolver } from './platform/auth/trial-token-resolver.js';
import { sessionResolver } from './platform/auth/session-resolver.js';
import cookie from '@fastify/cookie';
import { installCompression } from './platform/http/compression.js';
import { setUpAccounts } from './accounts/accounts-setup.js';
import { installCsrfCheck } from './accounts/csrf.js';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './platform/http/error-handling.js';
import { installOpenApi } from './platform/http/openapi.js';
import { installLoadShedding, watchDatabase, watchPressure, type PressureProbe } from './limits/load-shedding.js';
import { installRateLimits } from './limits/rate-limit-plugin.js';
import { RedirectGuard } from './limits/redirect-guard.js';
import { createRateLimiter } from './limits/redis-rate-limiter.js';
import { billingRoutes } from './billing/billing-routes.js';
import { linkRoutes } from './links/link-routes.js';
import { linkToolRoutes } from './links/link-tool-routes.js';
import { setUpQr } from './qr/qr-setup.js';
import { redirectRoutes } from './links/redirect-routes.js';
import { trialRoutes } from './links/trial-routes.js';
import type { Services } from './platform/http/services.js';
import { installStrictJson, parseQuery } from './platform/http/strict-parsers.js';
import { answerWhatNodeWould, MAX_REQUEST_HEADERS, refuseUnreadable, repeatedHeader, unreadableHead } from './platform/http/unreadable-request.js';
import type { Database } from './platform/database/database.js';
import { KyselyCreditStore } from './billing/credit-store.js';
import { KyselyIdempotencyStore } from './platform/idempotency/idempotency-store.js';
import { deploymentSecret } from './platform/database/settings-store.js';
import { purgeIdempotencyBefore } from './platform/idempotency/purge.js';
import { webPlugin } from './web/web-plugin.js';

/** How many days of a link's visits the operator console shows. */
const RECENT_DAYS = 7;
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface AppOptions {
  config: Config;
  database: Database;
  /** External edges, replaceable in tests. */
  now?: Clock;
  randomBytes?: RandomBytes;
  logger?: FastifyServerOptions['logger'];
  /** Load-shedding input; tests force it instead of saturating the machine. */
  pressure?: PressureProbe;
}

/**
 * Bodies are validated strictly (no type coercion); query strings and paths are text, so they coerce.
 * UUIDs leave validation in canonical form (src/platform/http/canonical-input.ts).
 */
function validators() {
  const options = { strict: false, useDefaults: true, removeAdditional: false, allErrors: false } as const;
  const body = addFormats(new Ajv({ ...options, coerceTypes: false }));
  const text = addFormats(new Ajv({ ...options, coerceTypes: true }));
  const codeUnits = withCodeUnitLengths(addFormats(new Ajv({ ...options, coerceTypes: false })));
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) => {
    if (httpPart === 'body') return withCanonicalUuids(schema, (CODE_UNIT_LENGTHS in schema ? codeUnits : body).compile(schema));
    const check = withCanonicalUuids(schema, decimalIntegers(schema, text.compile(schema)));
    return httpPart === 'querystring' ? refusingMalformedQuery(check) : check;
  };
}

/** Ajv with `maxLength` counting UTF-16 code units, as `.length` does (CODE_UNIT_LENGTHS says when, and why). */
function withCodeUnitLengths(ajv: Ajv): Ajv {
  ajv.removeKeyword('maxLength');
  ajv.addKeyword({
    keyword: 'maxLength',
    type: 'string',
    schemaType: 'number',
    code: (cxt: KeywordCxt) => cxt.fail(_`${cxt.data}.length > ${cxt.schema as number}`),
  });
  return ajv;
}

/**
 * Ajv coerces any text JavaScript reads as a number: "1e3", "0x10", even " " (as 0). An integer in a
 * query string or path must be written in decimal digits; anything else is 400 like any bad input.
 */
function decimalIntegers(schema: object, validate: (data: unknown) => boolean) {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const integers = Object.keys(properties).filter((name) => properties[name]?.type === 'integer');
  if (integers.length === 0) return validate;
  return (data: unknown) => {
    const values = (data ?? {}) as Record<string, unknown>;
    const bad = integers.find((name) => typeof values[name] === 'string' && !/^-?\d+$/.test(values[name]));
    if (bad !== undefined) return { error: Object.assign(new Error(`${bad} must be an integer`), { statusCode: 400 }) };
    return validate(data)
      ? true
      : { error: Object.assign(new Error('invalid request'), { statusCode: 400, validation: (validate as { errors?: unknown }).errors }) };
  };
}

/**
 * The HTTP server, made here and not by Fastify so that the redirect fast path runs before Fastify's
 * handler (docs/decisions.md, "Redirect fast path"). Fastify applies none of its server options to a
 * server it did not make, so every one of them is set here.
 */
function httpServer(protection: Protection, listener: http.RequestListener): http.Server {
  const server = http.createServer(
    {
      // headersTimeout and the check interval bound a client that trickles its headers; the check runs
      // every 30 s by default, which would let a slow client stay up to 30 s past either timeout.
      headersTimeout: protection.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.floor(protection.headersTimeoutMs / 2)),
      maxHeaderSize: protection.maxHeaderBytes,
      // node's own answer to a missing Host has no body; the listener refuses it (unreadable-request.ts).
      requireHostHeader: false,
    },
    listener,
  );
  // Reaching this count is refused by the listener: node drops header lines past it unseen.
  server.maxHeadersCount = MAX_REQUEST_HEADERS;
  answerWhatNodeWould(server);
  // Slow or stalled clients cannot hold sockets open forever (slowloris).
  server.requestTimeout = protection.requestTimeoutMs;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Fastify's connectionTimeout (a socket with no traffic for idleSocketTimeoutMs is closed), where
  // something is pending: on each request the router gets (buildApp) and on a redirect whose answer
  // could not be written out (fast-redirect.ts). Not as server.timeout, which node re-arms on every
  // request of a kept-alive socket, a timer made and dropped per redirect. A socket that sends nothing
  // is cut off by headersTimeout, an idle kept-alive one by keepAliveTimeout (docs/decisions.md).
  return server;
}

/** Builds the whole application on an open database. Never listens: src/server.ts does that. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database } = options;
  const now = options.now ?? Date.now;
  // Set below, once the resolver, the guard and the recorder exist; nothing is served before listen().
  // eslint-disable-next-line prefer-const -- assigned once the redirect answers exist, after the server that reads it.
  let fastPath: FastRedirect | undefined;
  const requestLog = new RequestLog();
  const app = Fastify({
    // Always a logger, if a silent one: Fastify reports a request's end to the log controller only then.
    logger: options.logger ?? { level: 'silent' },
    serverFactory: (handler) =>
      httpServer(config.protection, (req, res) => {
        // A redirect and the API refuse the same unreadable heads; repeated headers matter past the fast
        // path, which reads only X-Forwarded-For of them (it checks that itself).
        if (unreadableHead(req)) return refuseUnreadable(res);
        if (fastPath !== undefined && fastPath.take(req, res)) return;
        if (repeatedHeader(req, config.trustProxy)) return refuseUnreadable(res);
        req.socket.setTimeout(config.protection.idleSocketTimeoutMs);
        handler(req, res);
      }),
    // The fast path reads the client address the same way (src/platform/http/client-address.ts).
    trustProxy: config.trustProxy ? trustOneHop : false,
    bodyLimit: API_LIMITS.requests.maxBodyBytes,
    // A path parameter longer than this makes the router answer 400 before any route runs. No slug or
    // id comes near it, but a mangled short link of any length must still get the 404 page for people.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, querystringParser: parseQuery },
    // One line per API and website request, none for redirects (request-log.ts); errors are logged where handled.
    logController: requestLog,
    genReqId: requestId,
    frameworkErrors,
    clientErrorHandler,
    // Fastify's drain-time 503 has its own body, not {"error": value}; a request that reaches a route
    // during the drain (pipelined on an open connection) is served instead, with Connection: close.
    return503OnClosing: false,
  });
  app.setValidatorCompiler(validators());
  installStrictJson(app);
  installErrorHandling(app);

  const networkSecret = await deploymentSecret(database.db, 'network_secret');
  const events = new EventBus((error, event) => app.log.error({ err: error, event }, 'event listener failed'));
  const idempotency = new IdempotencyGuard(new KyselyIdempotencyStore(database.db, PENDING_CLAIM_TTL_MS));
  const credits = new KyselyCreditStore(database.db);
  const randomBytes = options.randomBytes ?? crypto.randomBytes;
  const metrics = installMetrics(app, config.metricsToken, { database, requests: requestLog });
  const safety = setUpSafety(app, { config, database, networkSecret, now, log: app.log, version: VERSION });
  const links = setUpLinks(app, {
    config,
    database,
    credits,
    idempotency,
    networkSecret,
    now,
    randomBytes,
    events,
    log: app.log,
    checkDestination: safety.checkDestination,
  });
  const billing = await setUpBilling(app, { config, database, credits, idempotency, networkSecret, now });
  const analytics = setUpAnalytics(app, {
    config,
    database,
    links: links.service,
    allowance: billing.visitAllowance,
    now,
    onActivity: metrics?.recordingActivity,
    networkSecret,
  });
  const services: Services = { links: links.service, billing: billing.service, render: links.render };
  const qr = setUpQr(app, { database, links: links.service, render: links.render, now });

  await installOpenApi(app);
  // One database ping a second for load shedding and readiness; the first result is in before listening.
  const databaseWatch = watchDatabase(app, database);
  await databaseWatch.first;
  const pressure = options.pressure ?? watchPressure(app, database, databaseWatch);
  const refusals = new RefusalCounts();
  const limiter = await createRateLimiter(config.redisUrl, app.log);
  app.addHook('onClose', async () => limiter.close());
  const people = setUpAccounts(app, { config, database, limiter, networkSecret, now, log: app.log, billing });
  const redirectAnswers = new FastRedirect({
    resolver: links.redirects,
    now,
    guard: new RedirectGuard(config.protection, pressure),
    visits: analytics.visits,
    log: app.log,
    trustProxy: config.trustProxy,
    idleSocketTimeoutMs: config.protection.idleSocketTimeoutMs,
    publicUrl: config.publicUrl,
  });
  fastPath = redirectAnswers;
  // Fastify marks what it still serves while closing with Connection: close; the fast path does too.
  app.addHook('preClose', async () => redirectAnswers.close());
  redirectRoutes(app, redirectAnswers, links.preview);
  healthRoutes(app, databaseWatch);
  metrics?.measure({ redirects: redirectAnswers.counts, redirectCache: links.cacheState, refusals, database: databaseWatch, limiter });
  // Only the routes declared after this are compressed: never the redirects, health or metrics above.
  await installCompression(app);
  await app.register(
    async (api) => {
      installLoadShedding(api, pressure, config.protection, refusals);
      // Per-network limit (onRequest) before authentication, so a caller over it costs no database query.
      installRateLimits(api, {
        limiter,
        limits: config.limits,
        website: config.websiteRateLimits,
        edgeLocation: config.edgeLocation,
        networkSecret,
        now,
        refusals,
      });
      // Asked in this order: a request's Authorization header decides before any other credential.
      await api.register(cookie);
      installAuth(api, [apiKeyResolver(people.accounts, now, app.log), sessionResolver(people.sessions), trialTokenResolver(links.store)]);
      // After authentication, before any body is read: state changes made with a session (docs/adr/0064).
      installCsrfCheck(api, config.publicUrl);
      await api.register(linkRoutes, { services });
      await api.register(linkToolRoutes, { services });
      await qr.routes(api);
      await api.register(trialRoutes, { services });
      await api.register(billingRoutes, { services });
      await analytics.routes(api);
      await api.register(people.routes);
      await api.register(safety.routes, {
        links: links.store,
        moderation: links.moderation,
        accounts: people.service,
        mailer: people.mailer,
        limiter,
        render: links.render,
        recentVisits: (link) => analytics.stats.recentDays(link.id, RECENT_DAYS),
      });
      api.get('/openapi.json', { schema: { hide: true }, config: { auth: 'public', rateLimit: false } }, async () => app.swagger());
    },
    { prefix: '/api/v1' },
  );
  // The website and the API reference, outside /api/v1 (src/web/web-plugin.ts).
  await app.register(webPlugin);

  // Idempotency records are only replayable on their UTC day: keep two days, then let them go.
  const purge = setInterval(() => void purgeIdempotencyBefore(database.db, now() - days(2)).catch(() => {}), 3_600_000);
  purge.unref();
  app.addHook('onClose', async () => clearInterval(purge));
  return app;
}
