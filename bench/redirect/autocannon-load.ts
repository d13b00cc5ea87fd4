import fs from 'node:fs';
// @ts-expect-error autocannon ships no type declarations
import autocannon from 'autocannon';
import { requestPicker, type LoadKind } from './traffic.js';

/**
 * Load generator in its own process (pinned to the other core): 64 connections of random /s/ and /q/
 * redirects with varied headers. `amount` sends exactly that many requests and waits for every answer,
 * so "redirects served" is exact; `duration` runs for that many seconds.
 */
const [url, slugFile, mode, value, kind = 'uniform'] = process.argv.slice(2) as [string, string, 'amount' | 'duration', string, LoadKind?];
const next = requestPicker(kind, fs.readFileSync(slugFile, 'utf8').split('\n').filter(Boolean));

const result = await autocannon({
  url,
  connections: 64,
  pipelining: 1,
  [mode]: Number(value),
  requests: [
    {
      setupRequest: (request: Record<string, unknown>) => ({ ...request, ...next() }),
    },
  ],
});
const codes = result.statusCodeStats as Record<string, { count: number }>;
console.log(
  JSON.stringify({
    requests: result.requests.total,
    redirects: codes['302']?.count ?? 0,
    errors: result.errors + result.timeouts,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
  }),
);
