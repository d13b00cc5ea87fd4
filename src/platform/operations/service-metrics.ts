import { Gauge, Histogram, type Registry } from 'prom-client';
import type { ConnectionsInUse, Dialect } from '../database/database.js';
import { VERSION } from '../version.js';
import type { RequestObserver } from './request-log.js';

/**
 * Series about the service itself rather than its traffic (metrics.ts registers them): what is
 * running, how its database connections are used, and how long API and website requests take.
 */

/** `shortlinks_build_info`: 1, labelled with what runs, as Prometheus' own `*_build_info` are. */
export function buildInfo(registers: Registry[], dialect: Dialect): void {
  const info = new Gauge({
    name: 'shortlinks_build_info',
    help: 'Always 1: the version of the service, of Node.js, and the database dialect it runs on.',
    labelNames: ['version', 'node_version', 'database'],
    registers,
  });
  info.set({ version: VERSION, node_version: process.version, database: dialect }, 1);
}

/** The database's connections, read when scraped (no query: the pool's own counts). */
export function connectionGauges(registers: Registry[], read: () => ConnectionsInUse): void {
  const scope = "PostgreSQL: this instance's pool; SQLite: its one writing connection.";
  const max: Gauge = new Gauge({
    name: 'shortlinks_database_pool_max_connections',
    help: `Connections the pool may open. ${scope}`,
    registers,
    collect: () => max.set(read().max),
  });
  const connections: Gauge<'state'> = new Gauge({
    name: 'shortlinks_database_pool_connections',
    help: `Open connections, by state (in_use, idle). ${scope}`,
    labelNames: ['state'],
    registers,
    collect: () => {
      const use = read();
      connections.set({ state: 'in_use' }, use.open - use.idle);
      connections.set({ state: 'idle' }, use.idle);
    },
  });
  const waiting: Gauge = new Gauge({
    name: 'shortlinks_database_pool_waiting',
    help: `Queries and transactions waiting for a connection. ${scope}`,
    registers,
    collect: () => waiting.set(read().waiting),
  });
}

const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * `shortlinks_http_request_duration_seconds`: API and website requests (request-log.ts says which),
 * by route pattern, method and status class, all bounded sets; never the raw URL.
 */
export function requestDurations(registers: Registry[]): RequestObserver {
  const histogram = new Histogram({
    name: 'shortlinks_http_request_duration_seconds',
    help: 'Time to answer API and website requests (not redirects), by route pattern (unmatched: no route), method and status class (2xx…5xx).',
    labelNames: ['route', 'method', 'status'],
    buckets: REQUEST_BUCKETS,
    registers,
  });
  return (route, method, status, seconds) => histogram.observe({ route, method, status: `${Math.floor(status / 100)}xx` }, Math.max(0, seconds));
}
