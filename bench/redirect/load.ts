import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { cpuMs, LOAD_CORE, pinned, type Server } from './processes.js';
import type { LoadKind } from './traffic.js';

/** What one load run saw: requests/s, latency percentiles (ms), requests completed, server CPU per request (µs). */
export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  cpuUs: number;
}

export const CONNECTIONS = 64;
export const hasWrk = spawnSync('wrk', ['--version']).error === undefined;
export const generator = hasWrk ? 'wrk, one thread' : 'autocannon (install wrk for a lighter load generator: apt-get install -y wrk)';

const wrkArgs = (base: string, seconds: number) =>
  pinned(LOAD_CORE, ['wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', path.join(import.meta.dirname, 'wrk.lua'), base]);
const autocannonArgs = (base: string, slugFile: string, mode: 'amount' | 'duration', value: number, kind: LoadKind = 'uniform') =>
  pinned(LOAD_CORE, [process.execPath, '--import', 'tsx', path.join(import.meta.dirname, 'autocannon-load.ts'), base, slugFile, mode, String(value), kind]);

/** wrk's latency lines read like "50%  612.00us" or "99%    2.10ms". */
function wrkMs(text: string, percentile: string): number {
  const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(text);
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

function wrkFigures(out: string): Omit<Figures, 'cpuUs'> {
  if (/Non-2xx or 3xx responses/.test(out)) throw new Error(`unexpected statuses:\n${out}`);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50: wrkMs(out, '50'),
    p99: wrkMs(out, '99'),
    requests: Number(/(\d+) requests in/.exec(out)?.[1]),
  };
}

/** autocannon-load.ts prints one line of JSON. */
function autocannonFigures(out: string): Omit<Figures, 'cpuUs'> & { redirects: number; errors: number } {
  const line = out.trim().split('\n').at(-1);
  if (!line) throw new Error('autocannon printed nothing');
  return JSON.parse(line);
}

/** `seconds` of load on one server from its own load generator; two of these may run at once. */
function load(base: string, slugFile: string, seconds: number, kind: LoadKind): Promise<Omit<Figures, 'cpuUs'>> {
  // wrk.lua sends the uniform load only: the realistic one always comes from autocannon.
  const wrk = hasWrk && kind === 'uniform';
  const args = wrk ? wrkArgs(base, seconds) : autocannonArgs(base, slugFile, 'duration', seconds, kind);
  const child = spawn(args[0]!, args.slice(1), { env: { ...process.env, SLUGS_FILE: slugFile, LOAD_KIND: kind }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const closed = new Promise<void>((resolve, reject) => child.once('error', reject).once('close', () => resolve()));
  return closed.then(() => (wrk ? wrkFigures(out) : autocannonFigures(out)));
}

/** Loads each server for `seconds`, all at once, and adds each one's CPU time per request. */
export async function measure(servers: Server[], slugFile: string, seconds: number, kind: LoadKind = 'uniform'): Promise<Figures[]> {
  const before = servers.map((s) => cpuMs(s.child.pid!));
  const figures = await Promise.all(servers.map((s) => load(s.url, slugFile, seconds, kind)));
  return figures.map((f, i) => ({ ...f, cpuUs: ((cpuMs(servers[i]!.child.pid!) - before[i]!) * 1000) / f.requests }));
}

/** Exactly `amount` requests with autocannon, every answer awaited: the redirects served are then exact. */
export function exactRun(base: string, slugFile: string, amount: number): Omit<Figures, 'cpuUs'> & { redirects: number; errors: number } {
  const args = autocannonArgs(base, slugFile, 'amount', amount);
  return autocannonFigures(spawnSync(args[0]!, args.slice(1), { encoding: 'utf8', maxBuffer: 1 << 20 }).stdout);
}
