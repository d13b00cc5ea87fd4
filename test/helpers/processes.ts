import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryPointArgs } from './entry-points.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Test servers and commands hash passwords at scrypt's cheapest accepted cost (N = 2^14, an eighth of
 * the default's time), as the suites make and check many passwords. password-hashing.test.ts checks
 * the default cost end to end.
 */
export const TEST_PASSWORD_HASHING = { PASSWORD_HASH_LOG_N: '14' } as const;

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Whether the process listening on `port` is `pid`, as `ss` sees it; undefined where `ss` cannot say.
 * A port found free can be taken by another test file's server before ours binds it: then our server
 * exits, and the /health that answered was the other one's.
 */
function listenerIs(port: number, pid: number): boolean | undefined {
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    return out.includes(`pid=${pid},`);
  } catch {
    return undefined;
  }
}

/**
 * Starts the real server (src/server.ts) as its own process and waits until it answers. It stops as
 * soon as it is signalled (SHUTDOWN_GRACE_MS 0) unless `env` says otherwise: the suites stop many
 * servers, and test/platform/shutdown.test.ts covers the grace.
 */
export async function startServer(env: Record<string, string>, nodeFlags: string[] = []): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const server = await startOnce(env, nodeFlags);
    if (server !== undefined) return server;
    if (attempt === 5) throw new Error('server lost its port to another process five times');
  }
}

async function startOnce(env: Record<string, string>, nodeFlags: string[]): Promise<ServerProcess | undefined> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags, ...entryPointArgs('server')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '0', ...TEST_PASSWORD_HASHING, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) {
      if (log.includes('EADDRINUSE')) return undefined;
      throw new Error(`server exited ${child.exitCode}: ${log}`);
    }
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) {
        if (listenerIs(port, child.pid!) !== false) break;
        // Another process answers on this port: ours cannot listen there.
        child.kill('SIGKILL');
        await exited;
        return undefined;
      }
    } catch {
      /* not up yet */
    }
    if (i > 300) throw new Error(`server did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    baseUrl,
    output: () => log,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real admin command line (src/cli/main.ts) in its own process, given what an operator gives it: arguments and DATABASE_URL. */
export async function runCli(databaseUrl: string, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...entryPointArgs('cli'), ...args],
      { cwd: ROOT, env: { ...process.env, ...TEST_PASSWORD_HASHING, DATABASE_URL: databaseUrl } },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A command that succeeded: exit 0, exactly one line on stdout holding one JSON object, nothing on stderr. */
export function printedObject(result: CliResult): any {
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  assert.match(result.stdout, /^[^\n]+\n$/, 'exactly one line on stdout');
  const value = JSON.parse(result.stdout);
  assert.equal(typeof value, 'object');
  assert.ok(value !== null && !Array.isArray(value));
  return value;
}

/** A command that failed: non-zero exit, nothing on stdout, exactly one non-empty line on stderr. */
export function failedWithOneLine(result: CliResult, what: string): void {
  assert.notEqual(result.code, 0, `${what}: exit code`);
  assert.equal(result.stdout, '', `${what}: stdout`);
  assert.match(result.stderr, /^[^\n]+\n$/, `${what}: one line on stderr, got ${JSON.stringify(result.stderr)}`);
}
