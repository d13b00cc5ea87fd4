import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The servers share core 0 and the load generators core 1, so that neither takes the other's time. */
export const SERVER_CORE = '0';
export const LOAD_CORE = '1';
export const hasTaskset = spawnSync('taskset', ['--version']).error === undefined;
export const pinned = (core: string, command: string[]): string[] => (hasTaskset ? ['taskset', '-c', core, ...command] : command);

/** A server under load: its process, its base URL, and a path that answers once it listens. */
export interface Server {
  name: string;
  url: string;
  up: string;
  child: ChildProcess;
}

/**
 * The service's settings under a benchmark's load: allowances raised so that every visit may be
 * recorded, and limits raised because the load (and any probe) comes from one address.
 */
export const serviceEnv = (databaseUrl: string, port: number): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  COUNTRY_HEADER: 'cf-ipcountry',
  FREE_VISITS_PER_MONTH: '1000000000',
  TRACKING_DAILY_LIMIT: '1000000000',
  TRACKING_DAILY_BOT_LIMIT: '1000000000',
  REDIRECT_FLOOD_PER_MINUTE: '100000000',
  RATE_LIMIT_PER_IP: '1000000',
  RATE_LIMIT_PER_ACCOUNT: '1000000',
});

/** The service as `npm start` runs it: `node <dist>/server.js`. */
export const serviceCommand = (dist: string): string[] => pinned(SERVER_CORE, [process.execPath, path.join(dist, 'server.js')]);

/** A reference server of bench/redirect/ (bare node:http or Fastify alone) answering the slugs in `slugFile`. */
export const referenceCommand = (script: 'bare-server.ts' | 'fastify-server.ts', slugFile: string, port: number): string[] =>
  pinned(SERVER_CORE, [process.execPath, '--import', 'tsx', path.join(import.meta.dirname, script), slugFile, String(port)]);

const children = new Set<ChildProcess>();
// A failed run must not leave frozen servers holding the ports for the next one.
process.on('exit', () => {
  for (const child of children) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});
// The servers run in sessions of their own, out of reach of the terminal's Ctrl-C: exit through the handler above.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/**
 * Starts a server in a session of its own: the kernel then gives each server an equal share of the
 * core when two run side by side, whatever their threads.
 */
export function start(command: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(command[0]!, command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export async function waitUntilUp(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if ((await fetch(url).catch(() => undefined)) !== undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** A graceful stop (the service flushes its visits); resolves with the exit code. */
export function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGCONT');
    child.kill('SIGTERM');
  });
}

export const freeze = (server: Server): boolean => server.child.kill('SIGSTOP');

/**
 * Resumes a frozen server. The service's load-shedding probe saw the freeze as one long event-loop
 * delay: its next one-second sample replaces that reading before load starts, or it would shed.
 */
export async function thaw(servers: Server[]): Promise<void> {
  for (const server of servers) server.child.kill('SIGCONT');
  await new Promise((resolve) => setTimeout(resolve, 1500));
}

/** User plus system CPU time of a process, in milliseconds (Linux clock ticks are 10 ms). */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
