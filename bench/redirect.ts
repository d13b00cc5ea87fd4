/**
 * npm run bench:redirect — the redirect path with visit recording, against bare node:http, in one run.
 *
 * Seeds SQLite with 10,000 links and sends random /s/ and /q/ redirects with varied user agents,
 * referrers and country headers over 64 connections to three servers: bare node:http answering the
 * same redirects from a Map with writeHead (the baseline), Fastify alone doing the same (a reference),
 * and the service as `npm start` runs it. Servers run on core 0, the load generator on core 1.
 *
 * Interleaved rounds: each server in turn is loaded for BENCH_SLICE_SECONDS while the others are
 * frozen (SIGSTOP), so the machine's drift hits all of them alike; ratios are taken per round. Then
 * an exact run sends a fixed number of requests to the service and checks, after a graceful stop,
 * that every redirect served was recorded as a visit. About 5 minutes.
 *
 * BENCH_LONG=1 adds side-by-side runs and fresh pairs of new processes (long.ts): about 25 minutes.
 * BENCH_BASELINE_DIST names the dist/ of another build, measured in the same run on its own database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONNECTIONS, exactRun, generator, measure, type Figures } from './redirect/load.js';
import { freshPairs, middle, sideBySidePhase, type Rival } from './redirect/long.js';
import { freeze, hasTaskset, referenceCommand, serviceCommand, serviceEnv, start, stop, thaw, waitUntilUp, type Server } from './redirect/processes.js';
import { recordedVisits, seedLinks } from './redirect/seed.js';
import type { LoadKind } from './redirect/traffic.js';

const LONG = process.env.BENCH_LONG === '1';
const setting = (name: string, short: number, long: number) => Number(process.env[name] ?? (LONG ? long : short));
const LINKS = 10_000;
const ROUNDS = setting('BENCH_ROUNDS', 10, 15);
const SLICE = setting('BENCH_SLICE_SECONDS', 5, 5);
const EXACT_REQUESTS = setting('BENCH_EXACT_REQUESTS', 200_000, 300_000);
const PAIRED_RUNS = setting('BENCH_PAIRED_RUNS', 0, 3);
const PAIRED_SECONDS = setting('BENCH_PAIRED_SECONDS', 10, 10);
const FRESH_PAIRS = setting('BENCH_FRESH_PAIRS', 0, 4);
const FRESH_RUNS = setting('BENCH_FRESH_RUNS', 0, 6);
const BASELINE_DIST = process.env.BENCH_BASELINE_DIST;

interface Measured extends Server {
  /** Per load: the figures of each round. */
  rounds: Record<LoadKind, Figures[]>;
}

const LOADS: LoadKind[] = ['uniform', 'zipf'];
const LOAD_NAMES: Record<LoadKind, string> = {
  uniform: 'uniform load (10,000 links alike, 10 user agents, 8 referrers, 10 countries)',
  zipf: 'realistic load (10,000 links of Zipf popularity, 27 user agents with link previews, 32 referrers, 30 countries)',
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-redirect-'));
const slugFile = path.join(dir, 'slugs.txt');
/** The database of the service (or of a baseline build) called `name`. */
const databaseOf = (name: string) => `sqlite:${path.join(dir, `${name.replace(/\W+/g, '-')}.db`)}`;

/**
 * A build of the service on a database of its own with the same links. A baseline build migrates its
 * database itself first (it may know fewer migrations than this checkout), then the links go in.
 */
async function startService(name: string, dist: string, port: number, slugs: string[], migratedBy: 'bench' | 'service'): Promise<Server> {
  const env = serviceEnv(databaseOf(name), port);
  const server = { name, url: `http://127.0.0.1:${port}`, up: '/health' };
  if (migratedBy === 'service') {
    const migrating = start(serviceCommand(dist), env);
    await waitUntilUp(server.url + server.up);
    await stop(migrating);
  }
  await seedLinks(env.DATABASE_URL!, LINKS, { slugs, migrate: migratedBy === 'bench' });
  const child = start(serviceCommand(dist), env);
  await waitUntilUp(server.url + server.up);
  return { ...server, child };
}

async function startReference(name: string, script: 'bare-server.ts' | 'fastify-server.ts', port: number): Promise<Server> {
  const server = { name, url: `http://127.0.0.1:${port}`, up: '/s/x', child: start(referenceCommand(script, slugFile, port)) };
  await waitUntilUp(server.url + server.up);
  return server;
}

/** Each server alone on the core in turn, ROUNDS times, after an unmeasured first load. */
async function interleavedRounds(servers: Measured[], kind: LoadKind): Promise<void> {
  for (const server of servers) {
    await thaw([server]);
    await measure([server], slugFile, SLICE, kind);
    freeze(server);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of servers) {
      await thaw([server]);
      server.rounds[kind].push((await measure([server], slugFile, SLICE, kind))[0]!);
      freeze(server);
    }
  }
}

const ms = (value: number) => value.toFixed(2);
const pct = (ratio: number) => `${(100 * ratio).toFixed(1)}%`;

function table(servers: Measured[], bare: Measured, kind: LoadKind): string[] {
  const rows = servers.map((s) => {
    const ratio = middle(s.rounds[kind].map((r, i) => r.rps / bare.rounds[kind][i]!.rps));
    const figure = (key: keyof Figures) => middle(s.rounds[kind].map((r) => r[key]));
    return `| ${s.name} | ${Math.round(figure('rps')).toLocaleString('en')} | ${ms(figure('p50'))} | ${ms(figure('p99'))} | ${figure('cpuUs').toFixed(1)} | ${pct(ratio)} |`;
  });
  return ['| server | requests/s | p50 ms | p99 ms | server CPU µs/request | / bare |', '|---|---|---|---|---|---|', ...rows];
}

async function main(): Promise<void> {
  const slugs = await seedLinks(databaseOf('service'), LINKS);
  fs.writeFileSync(slugFile, slugs.join('\n'));
  const rounds = `${ROUNDS} rounds of ${SLICE} s per server`;
  console.log(
    `${LINKS.toLocaleString('en')} links, ${CONNECTIONS} connections, ${rounds}, load: ${generator}, pinned to cores: ${hasTaskset}${LONG ? ', long mode' : ''}`,
  );
  console.log(
    `load average at the start: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (other processes skew requests/s)`,
  );

  const bare: Measured = { ...(await startReference('bare node:http', 'bare-server.ts', 3901)), rounds: { uniform: [], zipf: [] } };
  const fastify: Measured = { ...(await startReference('Fastify alone', 'fastify-server.ts', 3903)), rounds: { uniform: [], zipf: [] } };
  const child = start(serviceCommand(path.resolve('dist')), serviceEnv(databaseOf('service'), 3902));
  const service: Measured = { name: 'service', url: 'http://127.0.0.1:3902', up: '/health', child, rounds: { uniform: [], zipf: [] } };
  await waitUntilUp(service.url + service.up);
  const servers = [bare, fastify, service];
  if (BASELINE_DIST)
    servers.push({ ...(await startService('baseline build', path.resolve(BASELINE_DIST), 3904, slugs, 'service')), rounds: { uniform: [], zipf: [] } });
  const report: string[] = [];
  for (const kind of LOADS) {
    await interleavedRounds(servers, kind);
    const ratios = service.rounds[kind].map((r, i) => r.rps / bare.rounds[kind][i]!.rps);
    report.push('', `${LOAD_NAMES[kind]}:`, '', ...table(servers, bare, kind), '', `service / bare per round: ${ratios.map(pct).join(' ')}`);
    for (const s of servers) report.push(`${s.name} p99 per round (ms): ${s.rounds[kind].map((r) => ms(r.p99)).join(' ')}`);
  }
  if (PAIRED_RUNS > 0) {
    const pairs: [Server, Server][] = [[bare, service], [bare, fastify], ...servers.slice(3).map((b): [Server, Server] => [b, service])];
    report.push(...(await sideBySidePhase(pairs, slugFile, PAIRED_RUNS, PAIRED_SECONDS)));
  }
  for (const server of servers) await stop(server.child);

  // The exact run, on the service's database: the visits it adds must equal the redirects it served.
  const before = await recordedVisits(databaseOf('service'));
  const again = start(serviceCommand(path.resolve('dist')), serviceEnv(databaseOf('service'), 3902));
  await waitUntilUp(`${service.url}/health`);
  const exact = exactRun(service.url, slugFile, EXACT_REQUESTS);
  const code = await stop(again);
  const recorded = (await recordedVisits(databaseOf('service'))) - before;
  const allRecorded = recorded === exact.redirects && exact.redirects === EXACT_REQUESTS;
  report.push(
    `exact run (autocannon, ${EXACT_REQUESTS.toLocaleString('en')} requests): ${exact.redirects.toLocaleString('en')} redirects served, ${exact.errors} errors, ` +
      `${recorded.toLocaleString('en')} visits recorded${allRecorded ? '' : ' (MISMATCH)'}; exit code ${code}`,
  );

  if (FRESH_PAIRS > 0 && FRESH_RUNS > 0) {
    const options = { pairs: FRESH_PAIRS, runs: FRESH_RUNS, seconds: PAIRED_SECONDS };
    let started = 0;
    const fresh = () => startService(`fresh-service-${started++}`, path.resolve('dist'), 3906, slugs, 'bench');
    const rivals: Rival[] = [{ name: 'bare node:http', start: () => startReference('bare node:http', 'bare-server.ts', 3905) }];
    if (BASELINE_DIST)
      rivals.push({ name: 'baseline build', start: (index) => startService(`fresh-baseline-${index}`, path.resolve(BASELINE_DIST), 3907, slugs, 'service') });
    for (const rival of rivals) report.push(await freshPairs(rival, fresh, slugFile, options));
  }

  for (const kind of LOADS) {
    const ratio = middle(service.rounds[kind].map((r, i) => r.rps / bare.rounds[kind][i]!.rps));
    const p99 = middle(service.rounds[kind].map((r) => r.p99));
    report.push(
      `goal, ${kind} load: service / bare at least 80% (median of per-round ratios): ${pct(ratio)} ${ratio >= 0.8 ? 'met' : 'NOT met'}; ` +
        `service p99 under 5 ms (median of rounds): ${ms(p99)} ms ${p99 < 5 ? 'met' : 'NOT met'}`,
    );
  }
  report.push(
    `every visit recorded: ${allRecorded ? 'met' : 'NOT met'}`,
    `load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`\n${report.join('\n')}`);
  fs.rmSync(dir, { recursive: true, force: true });
}

await main();
