import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './load.js';
import { freePort } from './processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const NGINX = '/usr/sbin/nginx';
export const SITE = path.join(ROOT, 'deploy/nginx/shortlinks.conf');

/** Why the nginx suites cannot run here, or undefined when they can. In CI they must run. */
function nginxUnavailable(): string | undefined {
  if (fs.existsSync(NGINX)) return undefined;
  const reason = `nginx is not installed at ${NGINX} (apt-get install -y nginx)`;
  if (process.env.CI === 'true') throw new Error(`${reason} (CI requires it)`);
  console.log(`skipping nginx suites: ${reason}`);
  return reason;
}

export const nginxSkip = nginxUnavailable();

/** The committed site with only its ports and paths changed: this test's instances, port and folder. */
function renderSite(upstreams: [number, number], port: number, dir: string): string {
  const replacements: Array<[string | RegExp, string]> = [
    ['server 127.0.0.1:3001 ', `server 127.0.0.1:${upstreams[0]} `],
    ['server 127.0.0.1:3002 ', `server 127.0.0.1:${upstreams[1]} `],
    [/^\s*listen 80;$/m, `    listen 127.0.0.1:${port};`],
    [/^\s*listen \[::\]:80;\n/m, ''],
    ['/var/log/nginx/shortlinks.access.log', path.join(dir, 'access.log')],
  ];
  let site = fs.readFileSync(SITE, 'utf8');
  for (const [from, to] of replacements) {
    const next = site.replace(from, to);
    if (next === site) throw new Error(`${SITE} no longer has ${String(from)}: update the test's templating`);
    site = next;
  }
  return site;
}

export interface Nginx {
  port: number;
  /** The access log's lines (the site's own format: time, host, request, status, bytes, time, upstream, upstream status). */
  accessLog(): string[];
  /** nginx's error log: why it failed to reach an instance. */
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Debian's nginx with the committed site in front of two instances, as the current user, with its
 * pid, logs and temporary files in `dir`, in the foreground.
 */
export async function startNginx(upstreams: [number, number], dir: string): Promise<Nginx> {
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'shortlinks.conf'), renderSite(upstreams, port, dir));
  const temp = (name: string) => `${name}_temp_path ${path.join(dir, name)};`;
  const conf = [
    // As root nginx would hand its workers to nobody, who cannot enter this folder.
    process.getuid?.() === 0 ? 'user root;' : '',
    'worker_processes 1;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')} warn;`,
    'events { worker_connections 1024; }',
    `http { ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join(' ')}`,
    `  access_log ${path.join(dir, 'http-access.log')};`,
    `  include ${path.join(dir, 'shortlinks.conf')};`,
    '}',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await until('nginx answers', async () => {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${output}`);
    return (await request(port, '/health/live')).status === 200;
  });
  return {
    port,
    accessLog: () => fs.readFileSync(path.join(dir, 'access.log'), 'utf8').split('\n').filter(Boolean),
    errorLog: () => fs.readFileSync(path.join(dir, 'error.log'), 'utf8'),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Answer {
  /** 0: no answer at all (refused, reset). */
  status: number;
  body: string;
  retryAfter?: string;
}

/**
 * One request to nginx on a connection of its own from the loopback address `from` (any of
 * 127.0.0.0/8): the address nginx sees, and passes on in X-Forwarded-For. Never throws.
 */
export function request(
  port: number,
  path: string,
  options: { from?: string; headers?: Record<string, string>; method?: string; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const { from: localAddress, headers, method = 'GET', body } = options;
    const req = http.request({ host: '127.0.0.1', port, path, method, localAddress, headers, agent: false, timeout: 20_000 }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, retryAfter: res.headers['retry-after'] }));
      res.on('error', (error) => resolve({ status: 0, body: String(error) }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error) => resolve({ status: 0, body: String(error) }));
    req.end(body);
  });
}
