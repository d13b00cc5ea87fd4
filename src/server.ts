import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './platform/config.js';
import type { Database } from './platform/database/database.js';
import { openAtStart } from './platform/database/open-at-start.js';
import { TRIAL_TOKEN_HEADER } from './platform/http/headers.js';
import { leaveRotation } from './platform/operations/health.js';
import { StartupError } from './platform/startup-error.js';

/** How long the drain after the grace may take before the process gives up and exits 1. */
const DRAIN_LIMIT_MS = 15_000;

/**
 * Starts the service: configuration, database (migrated), HTTP. On SIGTERM/SIGINT it stops being
 * ready, keeps serving for SHUTDOWN_GRACE_MS, then stops accepting connections, lets requests in
 * flight finish, flushes the last visits and closes the database.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openAtStart(config.databaseUrl);
  const app = await buildApp({
    config,
    database,
    logger: {
      level: config.logLevel,
      // Never log credentials or bodies (passwords travel in them), even if a future log line includes a request.
      redact: [
        'req.headers.authorization',
        `req.headers["${TRIAL_TOKEN_HEADER.toLowerCase()}"]`,
        'req.headers.cookie',
        'req.body',
        'res.headers["set-cookie"]',
      ],
    },
  });
  stopOnSignals(app, database, config.shutdownGraceMs);
  await listen(app, config);
  app.log.info({ port: config.port, database: config.databaseUrl.split(':')[0], publicUrl: config.publicUrl }, 'listening');
}

async function listen(app: FastifyInstance, config: Config): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const { code } = error as { code?: string };
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw error;
    const reason = code === 'EADDRINUSE' ? 'the port is in use' : code === 'EACCES' ? 'permission denied' : 'no such address here';
    throw new StartupError(`cannot listen on ${config.host}:${config.port}: ${reason} (${code})`);
  }
}

/**
 * The first SIGTERM or SIGINT begins the shutdown; later ones (`npm start` passes on the Ctrl-C the
 * terminal also sent to this process) change nothing. Readiness answers 503 at once, so that load
 * balancers take the instance out of rotation while it still serves, and every answer closes its
 * connection; only after the grace does the listener close (docs/adr/0082-shutdown-grace.md).
 */
function stopOnSignals(app: FastifyInstance, database: Database, graceMs: number): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    leaveRotation(app);
    // Proxies that pool connections (nginx's keepalive) reconnect for their next request, so that after
    // the grace they meet a closed listener, which they retry elsewhere, rather than a pooled connection
    // closing under a request, which they may not (a POST). Runs before the app's own listener.
    app.server.prependListener('request', (_request, response) => response.setHeader('connection', 'close'));
    app.log.info({ signal, graceMs }, 'shutting down');
    const force = setTimeout(() => process.exit(1), graceMs + DRAIN_LIMIT_MS);
    force.unref();
    await new Promise((resolve) => setTimeout(resolve, graceMs));
    app.log.info('closing the listener');
    // server.close() drops the connections idle at that moment only; a keep-alive connection whose
    // request finishes during the drain would otherwise hold the shutdown for keepAliveTimeout.
    const reap = setInterval(() => app.server.closeIdleConnections(), 50);
    reap.unref();
    try {
      await app.close();
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  const known = error instanceof ConfigError || error instanceof StartupError;
  console.error(known ? error.message : error);
  process.exit(1);
});
