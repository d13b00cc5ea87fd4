/**
 * npm run bench:qr-load — redirect latency while QR exports run (issue 44): p50/p99 of sequential
 * redirects alone, then while eight clients keep exporting 2048-pixel codes with a 512×512 logo in
 * parallel, with the exports finished per second meanwhile (bench/qr-load/clients.ts).
 *
 * Measured as bench:redirect measures: the service runs as `npm start` runs it, from the build's
 * dist/ on SQLite, pinned to core 0 with its render workers (one core per instance); the redirect
 * client and the exporting clients run in another process on core 1.
 *
 * BENCH_DIST names another build's dist/ (default this checkout's); BENCH_ROUNDS (3), BENCH_REDIRECTS
 * per phase (2000), BENCH_LOGO_CHARS (a logo padded to that data-URL length, up to API.md's 700000;
 * default the plain logo, 9118). BENCH_CPU_PROF names a directory for the service's CPU profiles.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hasTaskset, LOAD_CORE, pinned, SERVER_CORE, serviceCommand, serviceEnv, start, stop, waitUntilUp } from './redirect/processes.js';

const DIST = path.resolve(process.env.BENCH_DIST ?? 'dist');
const PORT = 3921;
const url = `http://127.0.0.1:${PORT}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-qr-load-'));
const env = serviceEnv(`sqlite:${path.join(dir, 'service.db')}`, PORT);
// Node refuses --cpu-prof in NODE_OPTIONS: it goes on the command line, before the script.
const profiling = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
const serviceArgs = serviceCommand(DIST);
serviceArgs.splice(serviceArgs.indexOf(process.execPath) + 1, 0, ...profiling);

const service = start(serviceArgs, env);
await waitUntilUp(`${url}/health`);

/** The build's own operator CLI on the service's database (the service has migrated it). */
const cli = (...args: string[]) =>
  JSON.parse(execFileSync(process.execPath, [path.join(DIST, 'cli', 'main.js'), ...args], { env: { ...process.env, ...env }, encoding: 'utf8' }));
const account = cli('accounts', 'create', '--email', `qr-load-${Date.now()}@example.test`) as { id: string };
const { key } = cli('keys', 'create', '--account', account.id, '--scopes', 'links:write,qr:read') as { key: string };
const created = await fetch(`${url}/api/v1/links`, {
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
  body: JSON.stringify({ target: 'https://example.org/bench' }),
});
if (!created.ok) throw new Error(`link creation answered ${created.status}: ${await created.text()}`);
const link = (await created.json()) as { id: string; slug: string };

console.log(`build: ${DIST}; service on core ${SERVER_CORE}, clients on core ${LOAD_CORE}, pinned with taskset: ${hasTaskset ? 'yes' : 'no'}`);
const [command, ...args] = pinned(LOAD_CORE, [process.execPath, '--import', 'tsx', path.join(import.meta.dirname, 'qr-load', 'clients.ts')]);
const clients = spawn(command!, args, {
  stdio: 'inherit',
  env: { ...process.env, BENCH_URL: url, BENCH_KEY: key, BENCH_LINK_ID: link.id, BENCH_SLUG: link.slug },
});
const code = await new Promise<number | null>((resolve) => clients.once('exit', resolve));
await stop(service);
fs.rmSync(dir, { recursive: true, force: true });
process.exitCode = code ?? 1;
