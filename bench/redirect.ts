/**
 * npm run bench:redirect — the redirect hot path with visit recording, against bare node:http.
 *
 * Starts the service on SQLite with 10,000 links and drives random /s/ and /q/ slugs with varied user
 * agents, referrers and edge country headers at 64 connections; the server is pinned to core 0 and
 * the load generator to core 1 (taskset). The same load hits a bare node:http server answering the
 * same redirects from a Map, and Fastify alone does the same for reference. Load comes from wrk when
 * installed (`apt-get install -y wrk`), else from autocannon.
 *
 * The machine's speed drifts by a third from minute to minute (a shared VM), so the servers are
 * measured in interleaved rounds of BENCH_SLICE_SECONDS each, every server frozen (SIGSTOP) while
 * another is measured: drift hits all of them alike, and ratios are taken per round. Then the service
 * and Fastify alone each run side by side with bare Node. An exact phase sends an exact number of
 * requests (autocannon `amount`) and checks that visits recorded equal redirects served, after a
 * graceful stop flushed the last batch. Last, fresh pairs of new processes run side by side.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recordedVisits, seedLinks } from './redirect/seed.js';

const LINKS = 10_000;
// 15 rounds of 4 s: short rounds, because this machine's speed drifts within a minute and a per-round
// ratio is only as good as the closeness in time of its two figures. The service still runs for
// about a minute and a half of its own time (with the pause after each thaw), so a roll-up at the
// default interval (60 s, counted in recorder ticks, which stop while the process is frozen) falls
// inside the figures.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const SLICE = Number(process.env.BENCH_SLICE_SECONDS ?? 4);
const EXACT_REQUESTS = Number(process.env.BENCH_EXACT_REQUESTS ?? 300_000);
/**
 * Side by side: two servers on the server core at once, each loaded by its own load generator, for
 * BENCH_PAIRED_RUNS runs of BENCH_PAIRED_SECONDS. Each server is its own session, so the kernel's
 * autogroups share the core between the two processes equally, whatever their threads; both are
 * busy all the time, so each one's requests/s is what it does with the same half of the same core
 * in the same seconds, and the machine's drift, which interleaved rounds can only average out, hits
 * both alike (docs/benchmarks.md, "Sixth session", on how far runs agree).
 */
const PAIRED_RUNS = Number(process.env.BENCH_PAIRED_RUNS ?? 3);
const PAIRED_SECONDS = Number(process.env.BENCH_PAIRED_SECONDS ?? 10);
/**
 * Fresh pairs: BENCH_FRESH_PAIRS pairs of newly started processes, bare Node and the service (on a
 * database of its own with the same links), each pair side by side for a warm-up run and then
 * BENCH_FRESH_RUNS runs of BENCH_PAIRED_SECONDS. V8 compiles each process's hot code its own way and a
 * process keeps its luck for its life, so the long-lived pair above is one draw; these show how far
 * the ratio moves from one pair of processes to the next. Six runs of 10 s span the default roll-up
 * interval, so each service's window holds a roll-up.
 */
const FRESH_PAIRS = Number(process.env.BENCH_FRESH_PAIRS ?? 4);
const FRESH_RUNS = Number(process.env.BENCH_FRESH_RUNS ?? 6);
/**
 * Another build of the service (a `dist/` directory, e.g. of an earlier commit built in a git worktree)
 * to measure in the same interleaved rounds and side by side, on a database of its own with the same
 * links: a before/after that the machine's drift hits alike. Then also in fresh pairs, each of a new
 * baseline process and a new service (since the thirteenth session): V8's draws of both vary.
 */
const BASELINE_DIST = process.env.BENCH_BASELINE_DIST;
const SERVER_CORE = '0';
const LOAD_CORE = '1';
const hasWrk = spawnSync('wrk', ['--version']).error === undefined;
const hasTaskset = spawnSync('taskset', ['--version']).error === undefined;
const pinned = (core: string, command: string[]) => (hasTaskset ? ['taskset', '-c', core, ...command] : command);

/**
 * How `npm start` of the checkout that holds `dist` runs it: node, the start script's flags (a larger
 * young generation, docs/decisions.md), then `<dist>/server.js`. A baseline build is run with its own
 * checkout's flags, as it was started then.
 */
function serviceArgs(dist: string): string[] {
  const start: string = JSON.parse(fs.readFileSync(path.join(dist, '..', 'package.json'), 'utf8')).scripts.start;
  const words = start.trim().split(/\s+/);
  if (words[0] !== 'node' || words.at(-1) !== 'dist/server.js') throw new Error(`unexpected start script: ${start}`);
  return [process.execPath, ...words.slice(1, -1), path.join(dist, 'server.js')];
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Server CPU time per request (µs): robust to other load on the machine, unlike requests/s. */
  cpuUs?: number;
}

/** utime + stime of a process, in milliseconds (Linux clock ticks are 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A reference server of bench/redirect/ (bare node:http or Fastify alone) on `port`, answering the slugs of `slugFile`. */
const referenceCommand = (script: 'bare-server.ts' | 'fastify-server.ts', slugFile: string, port: string) =>
  pinned(SERVER_CORE, [process.execPath, '--import', 'tsx', path.join(import.meta.dirname, 'redirect', script), slugFile, port]);

interface Server {
  name: string;
  url: string;
  up: string;
  child: ChildProcess;
  warm?: Figures;
  rounds: Figures[];
}

const middle = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Per figure, the median over rounds. */
const median = (rounds: Figures[]): Figures => ({
  rps: middle(rounds.map((r) => r.rps)),
  p50: middle(rounds.map((r) => r.p50)),
  p99: middle(rounds.map((r) => r.p99)),
  requests: rounds.reduce((n, r) => n + r.requests, 0),
  cpuUs: middle(rounds.map((r) => r.cpuUs!)),
});

async function measure(pid: number, run: () => Promise<Figures>): Promise<Figures> {
  const before = cpuMs(pid);
  const figures = await run();
  return { ...figures, cpuUs: ((cpuMs(pid) - before) * 1000) / figures.requests };
}

const children = new Set<ChildProcess>();
// A failed run must not leave frozen servers holding the ports for the next one.
process.on('exit', () => {
  for (const child of children) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});
// The servers run in sessions of their own (start), out of reach of the terminal's Ctrl-C: exit
// through the handler above.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

function start(command: string[], env: Record<string, string> = {}): ChildProcess {
  // detached: a session (and so a scheduling autogroup) of its own, for the side-by-side runs.
  const child = spawn(command[0]!, command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function waitUntilUp(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await fetch(url).catch(() => undefined)) !== undefined) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

/** wrk's latency lines read like "50%  612.00us" or "99%    2.10ms". */
function wrkMs(text: string, percentile: string): number {
  const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(text);
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

const wrkArgs = (base: string, seconds: number) =>
  pinned(LOAD_CORE, ['wrk', '-t1', '-c64', `-d${seconds}s`, '--latency', '-s', path.join(import.meta.dirname, 'redirect/wrk.lua'), base]);
const autocannonArgs = (base: string, slugFile: string, mode: 'amount' | 'duration', value: number) =>
  pinned(LOAD_CORE, [process.execPath, '--import', 'tsx', path.join(import.meta.dirname, 'redirect/autocannon-load.ts'), base, slugFile, mode, String(value)]);

function wrkFigures(out: string): Figures {
  if (/Non-2xx or 3xx responses/.test(out)) throw new Error(`unexpected statuses:\n${out}`);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50: wrkMs(out, '50'),
    p99: wrkMs(out, '99'),
    requests: Number(/(\d+) requests in/.exec(out)?.[1]),
  };
}

function autocannonFigures(out: string) {
  const result = JSON.parse(out.trim().split('\n').at(-1)!);
  return { ...result, rps: result.rps, p50: result.p50, p99: result.p99, requests: result.requests } as Figures & { redirects: number; errors: number };
}

/** `seconds` of load on one server; two of these run at once in the side-by-side runs. */
function load(base: string, slugFile: string, seconds: number): Promise<Figures> {
  const args = hasWrk ? wrkArgs(base, seconds) : autocannonArgs(base, slugFile, 'duration', seconds);
  const child = spawn(args[0]!, args.slice(1), { env: { ...process.env, SLUGS_FILE: slugFile }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  return new Promise((resolve, reject) => child.once('error', reject).once('close', () => resolve(hasWrk ? wrkFigures(out) : autocannonFigures(out))));
}

function autocannon(base: string, slugFile: string, mode: 'amount' | 'duration', value: number) {
  const args = autocannonArgs(base, slugFile, mode, value);
  return autocannonFigures(spawnSync(args[0]!, args.slice(1), { encoding: 'utf8', maxBuffer: 1 << 20 }).stdout);
}

interface Paired {
  figures: [Figures, Figures];
  /** Each server's share of the core over the run (CPU time / wall time): about 0.5 each when both were busy throughout. */
  shares: [number, number];
}

/**
 * The baseline build (BENCH_BASELINE_DIST) on a database of its own: it migrates the database itself
 * (it may know fewer migrations than this build), then the same links are put in, and it is started
 * again to serve them.
 */
async function startBaseline(command: string[], env: Record<string, string>, slugs: string[]): Promise<ChildProcess> {
  const up = `http://127.0.0.1:${env.PORT}/health`;
  const migrating = start(command, env);
  await waitUntilUp(up);
  await stop(migrating);
  await seedLinks(env.DATABASE_URL!, LINKS, { slugs, migrate: false });
  const child = start(command, env);
  await waitUntilUp(up);
  return child;
}

/** The other side of a fresh pair: bare Node, or the baseline build (a before/after in fresh pairs). */
interface Rival {
  name: string;
  url: string;
  up: string;
  /** Starts a new process of it for pair `index`. */
  start: (index: number) => Promise<ChildProcess>;
}

/**
 * A new rival (see Rival) and a new service on a new database with the same links (see FRESH_PAIRS),
 * side by side: a warm-up run, then FRESH_RUNS runs. Returns each run's requests/s of both.
 */
async function freshPair(index: number, rival: Rival, slugs: string[], slugFile: string, serviceCommand: string[], env: Record<string, string>, dir: string): Promise<FreshRun[]> {
  // A database per rival and pair: the service of each pair starts from the same links alone.
  const databaseUrl = `sqlite:${path.join(dir, `fresh-${new URL(rival.url).port}-${index}.db`)}`;
  await seedLinks(databaseUrl, LINKS, { slugs });
  const pair: [Server, Server] = [
    { name: rival.name, url: rival.url, up: rival.up, child: await rival.start(index), rounds: [] },
    { name: 'service', url: 'http://127.0.0.1:3906', up: '/health', child: start(serviceCommand, { ...env, DATABASE_URL: databaseUrl, PORT: '3906' }), rounds: [] },
  ];
  for (const server of pair) await waitUntilUp(server.url + server.up);
  await sideBySide(pair, slugFile);
  const runs: FreshRun[] = [];
  for (let run = 0; run < FRESH_RUNS; run++) {
    const { figures } = await sideBySide(pair, slugFile);
    runs.push({ rival: figures[0].rps, service: figures[1].rps });
  }
  for (const server of pair) {
    server.child.kill('SIGCONT');
    await stop(server.child);
  }
  return runs;
}

/** One run of a fresh pair: the requests/s of the rival (bare Node or the baseline build) and of the service, side by side. */
interface FreshRun {
  rival: number;
  service: number;
}

/** Both servers thawed and loaded at once (see PAIRED_RUNS), then frozen again. */
async function sideBySide(pair: [Server, Server], slugFile: string): Promise<Paired> {
  for (const server of pair) server.child.kill('SIGCONT');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const before = pair.map((s) => cpuMs(s.child.pid!));
  const started = Date.now();
  const figures = (await Promise.all(pair.map((s) => load(s.url, slugFile, PAIRED_SECONDS)))) as [Figures, Figures];
  const wall = Date.now() - started;
  const used = pair.map((s, i) => cpuMs(s.child.pid!) - before[i]!);
  for (const server of pair) server.child.kill('SIGSTOP');
  for (const [i, f] of figures.entries()) f.cpuUs = (used[i]! * 1000) / f.requests;
  return { figures, shares: [used[0]! / wall, used[1]! / wall] };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-redirect-'));
  const databaseUrl = `sqlite:${path.join(dir, 'bench.db')}`;
  const slugFile = path.join(dir, 'slugs.txt');
  const slugs = await seedLinks(databaseUrl, LINKS);
  fs.writeFileSync(slugFile, slugs.join('\n'));
  const generator = hasWrk ? 'wrk 1 thread' : 'autocannon (install wrk for a lighter load generator: apt-get install -y wrk)';
  console.log(`${LINKS} links, 64 connections, ${ROUNDS} rounds of ${SLICE} s per server, load: ${generator}, taskset: ${hasTaskset}`);

  const env = {
    DATABASE_URL: databaseUrl,
    PORT: '3902',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    COUNTRY_HEADER: 'cf-ipcountry',
    // Allowances raised so that every visit may be recorded; the load comes from one address.
    FREE_VISITS_PER_MONTH: '1000000000',
    TRACKING_DAILY_LIMIT: '1000000000',
    REDIRECT_FLOOD_PER_MINUTE: '100000000',
  };
  const serviceCommand = pinned(SERVER_CORE, serviceArgs(path.resolve('dist')));
  const baseline: Server[] = [];
  if (BASELINE_DIST) {
    const baselineUrl = `sqlite:${path.join(dir, 'baseline.db')}`;
    const command = pinned(SERVER_CORE, serviceArgs(path.resolve(BASELINE_DIST)));
    const baselineEnv = { ...env, DATABASE_URL: baselineUrl, PORT: '3904' };
    baseline.push({ name: 'baseline build (BENCH_BASELINE_DIST)', url: 'http://127.0.0.1:3904', up: '/health', child: await startBaseline(command, baselineEnv, slugs), rounds: [] });
  }
  const servers: Server[] = [
    { name: 'bare node:http', url: 'http://127.0.0.1:3901', up: '/s/x', child: start(referenceCommand('bare-server.ts', slugFile, '3901')), rounds: [] },
    { name: 'Fastify alone (Map)', url: 'http://127.0.0.1:3903', up: '/s/x', child: start(referenceCommand('fastify-server.ts', slugFile, '3903')), rounds: [] },
    { name: 'service (recording)', url: 'http://127.0.0.1:3902', up: '/health', child: start(serviceCommand, env), rounds: [] },
    ...baseline,
  ];
  for (const server of servers) {
    await waitUntilUp(server.url + server.up);
    server.warm = await load(server.url, slugFile, 5);
    server.child.kill('SIGSTOP');
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of servers) {
      server.child.kill('SIGCONT');
      // The service's load-shedding probe saw the freeze as one long event-loop delay: let its next
      // one-second sample replace that reading before the load starts, or it sheds the first second.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      server.rounds.push(await measure(server.child.pid!, () => load(server.url, slugFile, SLICE)));
      server.child.kill('SIGSTOP');
    }
  }
  const [bare, framework, serviceRun] = servers as [Server, Server, Server];
  // Fastify alone beside bare Node too: a reference for what this machine's side-by-side figure makes
  // of a framework (the issue measured Fastify alone at about 92% of bare Node on its machine).
  const pairs: [Server, Server][] = [[bare, serviceRun], [bare, framework], ...baseline.map((b): [Server, Server] => [b, serviceRun])];
  const paired = pairs.map((): Paired[] => []);
  for (let run = 0; run < PAIRED_RUNS; run++) {
    for (const [i, pair] of pairs.entries()) paired[i]!.push(await sideBySide(pair, slugFile));
  }
  for (const server of servers) server.child.kill('SIGCONT');
  await stop(bare.child);
  await stop(framework.child);
  for (const b of baseline) await stop(b.child);
  const code = await stop(serviceRun.child);
  const afterTimed = await recordedVisits(databaseUrl);
  const timedServed =
    serviceRun.warm!.requests +
    serviceRun.rounds.reduce((n, r) => n + r.requests, 0) +
    paired.reduce((n, runs, i) => n + (pairs[i]![1] === serviceRun ? runs.reduce((m, p) => m + p.figures[1].requests, 0) : 0), 0);

  const service = start(serviceCommand, env);
  await waitUntilUp('http://127.0.0.1:3902/health');
  const exact = autocannon('http://127.0.0.1:3902', slugFile, 'amount', EXACT_REQUESTS);
  const exactCode = await stop(service);
  const recordedExact = (await recordedVisits(databaseUrl)) - afterTimed;

  const fmt = (f: Figures) =>
    `${Math.round(f.rps).toLocaleString('en')} req/s, p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms` +
    (f.cpuUs === undefined ? '' : `, ${f.cpuUs.toFixed(1)} µs server CPU per request`);
  for (const server of servers) console.log(`${server.name.padEnd(22)} median of rounds: ${fmt(median(server.rounds))}`);
  for (const [i] of serviceRun.rounds.entries()) {
    const line = servers.map((s) => `${s.name.split(' ')[0]} ${Math.round(s.rounds[i]!.rps)} (p99 ${s.rounds[i]!.p99.toFixed(1)})`).join(', ');
    console.log(`  round ${i + 1}: ${line}; service/bare ${((100 * serviceRun.rounds[i]!.rps) / bare.rounds[i]!.rps).toFixed(1)}%`);
  }
  const ratios = serviceRun.rounds.map((r, i) => r.rps / bare.rounds[i]!.rps);
  const cpu = (s: Server) => s.rounds.reduce((n, r) => n + r.cpuUs! * r.requests, 0) / s.rounds.reduce((n, r) => n + r.requests, 0);
  for (const b of baseline) {
    console.log(`baseline build: ${(100 * middle(b.rounds.map((r, i) => r.rps / bare.rounds[i]!.rps))).toFixed(1)}% of bare by requests/s (median of per-round ratios), ${((100 * cpu(bare)) / cpu(b)).toFixed(1)}% by CPU per request`);
  }
  console.log(`ratio: ${(100 * middle(ratios)).toFixed(1)}% of bare by requests/s (median of per-round ratios; Fastify alone ${(100 * middle(framework.rounds.map((r, i) => r.rps / bare.rounds[i]!.rps))).toFixed(1)}%), ${((100 * cpu(bare)) / cpu(serviceRun)).toFixed(1)}% by CPU per request over all rounds`);
  for (const [i, [a, b]] of pairs.entries()) {
    const runs = paired[i]!;
    const byRps = runs.map((p) => p.figures[1].rps / p.figures[0].rps);
    const byCpu = runs.map((p) => p.figures[0].cpuUs! / p.figures[1].cpuUs!);
    const detail = runs
      .map((p) => `${Math.round(p.figures[0].rps)} / ${Math.round(p.figures[1].rps)} req/s, core shares ${p.shares.map((x) => x.toFixed(2)).join(' / ')}`)
      .join('; ');
    console.log(
      `side by side, ${a.name} / ${b.name}: ${b.name} at ${(100 * middle(byRps)).toFixed(1)}% by requests/s (median of ${runs.length} runs of ${PAIRED_SECONDS} s; ${byRps.map((r) => (100 * r).toFixed(1)).join(', ')}%), ${(100 * middle(byCpu)).toFixed(1)}% by CPU per request (${detail})`,
    );
  }
  console.log(`load average during the run: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (other processes skew requests/s)`);
  console.log(`timed runs: ${timedServed} redirects completed by the load generator, ${afterTimed} visits recorded (the generator does not count requests in flight when it stops: up to 64 per run); exit ${code}`);
  console.log(`exact run: ${exact.redirects} redirects served of ${EXACT_REQUESTS} sent (${exact.errors} errors), ${recordedExact} visits recorded; ${fmt(exact)} (autocannon); exit ${exactCode}`);
  console.log(recordedExact === exact.redirects && exact.redirects === EXACT_REQUESTS ? 'visits recorded = redirects served' : 'MISMATCH: visits lost or extra');
  if (FRESH_PAIRS > 0 && FRESH_RUNS > 0) {
    const rivals: Rival[] = [{ name: 'bare node:http', url: 'http://127.0.0.1:3905', up: '/s/x', start: async () => start(referenceCommand('bare-server.ts', slugFile, '3905')) }];
    if (BASELINE_DIST) {
      const command = pinned(SERVER_CORE, serviceArgs(path.resolve(BASELINE_DIST)));
      const baselineEnv = (index: number) => ({ ...env, DATABASE_URL: `sqlite:${path.join(dir, `fresh-baseline-${index}.db`)}`, PORT: '3907' });
      rivals.push({ name: 'baseline build', url: 'http://127.0.0.1:3907', up: '/health', start: (index) => startBaseline(command, baselineEnv(index), slugs) });
    }
    for (const rival of rivals) {
      const pairsRuns: FreshRun[][] = [];
      for (let i = 0; i < FRESH_PAIRS; i++) pairsRuns.push(await freshPair(i, rival, slugs, slugFile, serviceCommand, env, dir));
      const fresh = pairsRuns.map((runs) => runs.map((r) => r.service / r.rival));
      const pct = (r: number) => (100 * r).toFixed(1);
      // Requests over all runs, those holding a roll-up included: the time-averaged ratio, which the
      // median (a typical run) leaves out.
      const sum = (key: keyof FreshRun) => pairsRuns.flat().reduce((n, r) => n + r[key], 0);
      console.log(
        `fresh pairs, ${rival.name} / service (${FRESH_PAIRS} pairs of new processes, ${FRESH_RUNS} runs of ${PAIRED_SECONDS} s each after a warm-up run): service at ${pct(middle(fresh.flat()))}% by requests/s (median of all runs), ${pct(sum('service') / sum('rival'))}% over all runs (requests served in all of them, roll-ups included); per pair ${fresh.map((runs) => pct(middle(runs))).join(', ')}%; runs ${fresh.map((runs) => runs.map(pct).join(' ')).join(' | ')}`,
      );
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

await main();
