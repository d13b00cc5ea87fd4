import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './platform/config.js';
import { openDatabase } from './platform/database/database.js';
import { TRIAL_TOKEN_HEADER } from './platform/http/headers.js';

/**
 * Starts the service: configuration, database (migrated), HTTP. On SIGTERM/SIGINT it stops accepting
 * connections, lets requests in flight finish, then closes the database.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl);
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
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
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
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  app.log.info({ port: config.port, database: config.databaseUrl.split(':')[0], publicUrl: config.publicUrl }, 'listening');
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
