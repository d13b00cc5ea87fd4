/**
 * npm run bench:freshness — how soon a visit is in the stats while the service answers the redirect
 * benchmark's full load: on SQLite with one instance, and on PostgreSQL with one instance and with two
 * sharing the database (skipped, with a line, when no server answers at BENCH_POSTGRES_URL).
 *
 * Each setup seeds 10,000 links (bench/redirect/seed.ts) and a probe link per instance, then loads
 * every instance with wrk or autocannon (64 connections each, on core 1; the instances share core 0)
 * for BENCH_SECONDS. Meanwhile a probe redirects each instance's link through it at random intervals,
 * so that its visits land anywhere in the flush cycle, and reads the links' JSON stats through another
 * instance (or the same) every 50 ms: the time from a redirect to the first read that counts it is one
 * lag. The goal (docs/adr/0042): 5 s at this load. Each instance's flushes of the run, and their mean
 * duration, come from its /metrics.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commands } from '../src/cli/commands.js';
import { loadConfig } from '../src/platform/config.js';
import { openDatabase } from '../src/platform/database/database.js';
import { PG_ADMIN, postgresUrl } from './postgres.js';
import { CONNECTIONS, generator, measure } from './redirect/load.js';
import { serviceCommand, serviceEnv, start, stop, waitUntilUp, type Server } from './redirect/processes.js';
import { seedLinks } from './redirect/seed.js';

const LINKS = 10_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 40);
/** Seconds of load after the last probe redirect, for it to be counted while the load still runs. */
const PROBE_TAIL_SECONDS = 10;
if (!Number.isInteger(SECONDS) || SECONDS < PROBE_TAIL_SECONDS + 5) throw new Error(`BENCH_SECONDS must be an integer of at least ${PROBE_TAIL_SECONDS + 5}`);
/** The build measured: this checkout's dist/, or another build's (as BENCH_BASELINE_DIST in bench:redirect). */
const DIST = path.resolve(process.env.BENCH_DIST ?? 'dist');
/** A probe still uncounted this long after its redirect is reported as missed. */
const GIVE_UP_MS = 30_000;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-freshness-'));
const slugFile = path.join(dir, 'slugs.txt');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An account with a key that may read analytics, made as the operator's CLI makes them. */
async function probeKey(databaseUrl: string): Promise<string> {
  const database = await openDatabase(databaseUrl);
  try {
    const config = loadConfig({ DATABASE_URL: databaseUrl });
    const run = (name: string, values: Record<string, string>) => commands[name]!.run(values, { database, config, now: Date.now() });
    const account = (await run('accounts create', { email: `probe-${crypto.randomUUID()}@example.test` })) as { id: string };
    const { key } = (await run('keys create', { account: account.id, scopes: 'links:write,links:read,analytics:read' })) as { key: string };
    return key;
  } finally {
    await database.close();
  }
}

/** Fails with the answer's status and body unless it is `expected`. */
async function expectStatus(answer: Response, expected: number, what: string): Promise<Response> {
  if (answer.status !== expected) throw new Error(`${what} answered ${answer.status}: ${await answer.text()}`);
  return answer;
}

interface ProbeLink {
  id: string;
  slug: string;
}

/**
 * A probe link for each instance, created through it before the load starts: under full load the
 * service sheds API writes with a 503, as it should, and the probe needs its links.
 */
function probeLinks(servers: Server[], key: string): Promise<ProbeLink[]> {
  return Promise.all(
    servers.map(async (server) => {
      const created = await fetch(`${server.url}/api/v1/links`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify({ target: 'https://example.org/probe' }),
      });
      return (await (await expectStatus(created, 200, 'creating a probe link')).json()) as ProbeLink;
    }),
  );
}

/**
 * Redirects a link of each instance's own through that instance (visits through one instance are
 * counted in the order they were made), at random intervals of 0.2 to 0.8 s until `until`, while
 * reading each link's stats every 50 ms through the next instance: the lag of each redirect, in ms,
 * from just before it was sent to the end of the first read that counts it.
 */
async function probe(servers: Server[], key: string, links: ProbeLink[], until: number): Promise<{ lags: number[]; shed: number }> {
  const headers = { authorization: `Bearer ${key}` };
  const sentAt: number[][] = servers.map(() => []);
  const lags: number[] = [];
  let counted = servers.map(() => 0);
  let shed = 0;
  let sending = true;
  const send = async () => {
    try {
      for (let n = 0; Date.now() < until; n++) {
        const i = n % servers.length;
        const at = performance.now();
        await expectStatus(await fetch(`${servers[i]!.url}/s/${links[i]!.slug}`, { redirect: 'manual' }), 302, 'a probe redirect');
        sentAt[i]!.push(at);
        await sleep(200 + Math.random() * 600);
      }
    } finally {
      sending = false;
    }
  };
  const read = async () => {
    const waiting = () => sentAt.some((sent, i) => counted[i]! < sent.length);
    while (sending || waiting()) {
      counted = await Promise.all(
        links.map(async (link, i) => {
          const reader = servers[(i + 1) % servers.length]!;
          const answer = await fetch(`${reader.url}/api/v1/links/${link.id}/stats?days=1`, { headers });
          // Shed under load (503 with Retry-After): counted, and read again at the next poll.
          if (answer.status === 503) {
            shed++;
            await answer.body?.cancel();
            return counted[i]!;
          }
          const { total } = (await (await expectStatus(answer, 200, 'a stats read')).json()) as { total: number };
          const now = performance.now();
          const sent = sentAt[i]!;
          for (let n = counted[i]!; n < Math.min(total, sent.length); n++) lags.push(now - sent[n]!);
          if (total < sent.length && now - sent[total]! > GIVE_UP_MS) throw new Error(`a probe was not counted after ${GIVE_UP_MS} ms`);
          return Math.min(total, sent.length);
        }),
      );
      await sleep(50);
    }
  };
  await Promise.all([send(), read()]);
  return { lags, shed };
}

const METRICS_TOKEN = 'bench-freshness-metrics-token';

/** The instance's flushes so far, from /metrics: how many succeeded, and their mean duration in ms. */
async function flushes(server: Server): Promise<{ count: number; meanMs: number }> {
  const text = await (
    await expectStatus(await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }), 200, 'metrics')
  ).text();
  const value = (name: string) => Number(new RegExp(`^shortlinks_visit_flush_duration_seconds_${name}\\{outcome="ok"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  const count = value('count');
  return { count, meanMs: count === 0 ? 0 : (1000 * value('sum')) / count };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const s = (ms: number) => (ms / 1000).toFixed(2);

/** One setup: the instances up on a seeded database, loaded while probed; one line of the table. */
async function setup(label: string, databaseUrl: string, instances: number): Promise<string> {
  const slugs = await seedLinks(databaseUrl, LINKS);
  fs.writeFileSync(slugFile, slugs.join('\n'));
  const key = await probeKey(databaseUrl);
  const servers: Server[] = [];
  try {
    for (let i = 0; i < instances; i++) {
      const port = 3911 + i;
      const server = {
        name: `${label} ${i + 1}`,
        url: `http://127.0.0.1:${port}`,
        up: '/health',
        child: start(serviceCommand(DIST), { ...serviceEnv(databaseUrl, port), METRICS_TOKEN }),
      };
      servers.push(server);
      await waitUntilUp(server.url + server.up);
    }
    // Probing stops PROBE_TAIL_SECONDS before the load does, for its last visits to be counted under load.
    const links = await probeLinks(servers, key);
    const probing = sleep(2000).then(() => probe(servers, key, links, Date.now() + (SECONDS - PROBE_TAIL_SECONDS) * 1000));
    // The load runs its course even when the probe fails, so that no load generator outlives the run.
    const [figures, probed] = await Promise.all([measure(servers, slugFile, SECONDS), probing.catch((error: unknown) => ({ error }))]);
    if ('error' in probed) throw probed.error;
    const flushed = await Promise.all(servers.map(flushes));
    const rps = figures.reduce((sum, f) => sum + f.rps, 0);
    const sorted = [...probed.lags].sort((a, b) => a - b);
    return `| ${label} | ${Math.round(rps).toLocaleString('en')} | ${sorted.length} | ${s(percentile(sorted, 0.5))} | ${s(percentile(sorted, 0.9))} | ${s(sorted.at(-1)!)} | ${probed.shed} | ${flushed.map((f) => `${f.count}, ${Math.round(f.meanMs)} ms`).join('; ')} |`;
  } finally {
    for (const server of servers) await stop(server.child);
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(DIST, 'server.js'))) throw new Error(`${DIST}/server.js is missing: run npm run build first`);
  console.log(`${LINKS.toLocaleString('en')} links, ${CONNECTIONS} connections per instance, ${SECONDS} s of load per setup, load: ${generator}`);
  console.log(`load average at the start: ${os.loadavg()[0]!.toFixed(1)}`);
  const rows = [
    '| setup | redirects/s (all instances) | probes | lag p50 s | lag p90 s | lag max s | stats reads shed (503) | flushes, mean duration (per instance) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  rows.push(await setup('SQLite, one instance', `sqlite:${path.join(dir, 'freshness.db')}`, 1));
  for (const instances of [1, 2]) {
    const db = await postgresUrl('bench_freshness');
    if (!db) {
      rows.push(`| PostgreSQL | not reachable at ${PG_ADMIN}, skipped | | | | | | |`);
      break;
    }
    try {
      rows.push(await setup(`PostgreSQL, ${instances === 1 ? 'one instance' : 'two instances'}`, db.url, instances));
    } finally {
      await db.drop();
    }
  }
  console.log(rows.join('\n'));
}

try {
  await main();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
