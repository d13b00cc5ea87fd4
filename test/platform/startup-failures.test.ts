import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { postgresSkip } from '../helpers/databases.js';
import { entryPointArgs } from '../helpers/entry-points.js';
import { freePort, runCli, startServer } from '../helpers/processes.js';
import { redisSkip, TEST_REDIS_URL } from '../helpers/redis.js';

const PG_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TOKEN = 'metrics-token-0123456789abcdef';

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The server started in `cwd` with `env` (as `uid`, when given), run until it exits. */
async function run(env: Record<string, string>, options: { cwd: string; uid?: number }): Promise<Outcome> {
  const child = spawn(process.execPath, entryPointArgs('server'), {
    cwd: options.cwd,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(await freePort()), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A server that starts anyway is a failure of the test: it is stopped after a while so the test ends.
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Exit non-zero, nothing on stdout, exactly one line on stderr that matches `reason`: no stack trace. */
function assertOneLine(outcome: Outcome, reason: RegExp): void {
  assert.notEqual(outcome.code, 0, 'exits non-zero');
  const lines = outcome.stderr.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${outcome.stderr}`);
  assert.match(lines[0]!, reason);
  assert.doesNotMatch(outcome.stdout, /listening/);
}

describe('start-up failures are one line naming the problem', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-start-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a PostgreSQL database that does not exist', { skip: postgresSkip }, async () => {
    const name = `t_missing_${crypto.randomBytes(4).toString('hex')}`;
    const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
    assertOneLine(
      await run({ DATABASE_URL: url }, { cwd: dir }),
      new RegExp(`^DATABASE_URL: PostgreSQL database "${name}" does not exist on .+createdb ${name}`),
    );
    // The CLI opens the database the same way.
    const cli = await runCli(url, 'accounts', 'create', '--email', 'nobody@example.test');
    assertOneLine({ ...cli, stdout: '' }, new RegExp(`database "${name}" does not exist`));
  });

  test('a PostgreSQL server that cannot be reached, with the password never echoed', async () => {
    const port = await freePort();
    const outcome = await run({ DATABASE_URL: `postgres://app:s3cret-pass@127.0.0.1:${port}/shortlinks` }, { cwd: dir });
    assertOneLine(outcome, new RegExp(`^DATABASE_URL: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}: connection refused`));
    assert.equal(outcome.stderr.includes('s3cret-pass'), false);
  });

  test('a SQLite path outside the working directory whose folder does not exist', async () => {
    const folder = path.join(dir, 'elsewhere', 'missing');
    const work = fs.mkdtempSync(path.join(dir, 'work-'));
    assertOneLine(
      await run({ DATABASE_URL: `sqlite:${folder}/shortlinks.db` }, { cwd: work }),
      new RegExp(`^DATABASE_URL: SQLite folder ${folder} does not exist`),
    );
    assert.equal(fs.existsSync(folder), false, 'nothing was created');
  });

  test('a SQLite path under the working directory whose folder cannot be created', async () => {
    const work = fs.mkdtempSync(path.join(dir, 'work-'));
    fs.writeFileSync(path.join(work, 'blocked'), 'a file where a folder would go');
    assertOneLine(
      await run({ DATABASE_URL: 'sqlite:./blocked/data/shortlinks.db' }, { cwd: work }),
      /^DATABASE_URL: cannot create SQLite folder .*blocked\/data: a file is in the way$/,
    );
  });

  test('a SQLite folder this user cannot write', async () => {
    // As root every folder is writable: the server then runs as nobody.
    const uid = process.getuid?.() === 0 ? 65534 : undefined;
    const work = fs.mkdtempSync(path.join(dir, 'work-'));
    fs.chmodSync(dir, 0o755);
    fs.chmodSync(work, 0o755);
    const readOnly = path.join(work, 'read-only');
    fs.mkdirSync(readOnly, { mode: 0o555 });
    assertOneLine(
      await run({ DATABASE_URL: `sqlite:${readOnly}/shortlinks.db` }, { cwd: work, uid }),
      /^DATABASE_URL: SQLite folder .*read-only is not writable by this user/,
    );
  });

  test('the default ./data/ folder is made in the working directory', async () => {
    const work = fs.mkdtempSync(path.join(dir, 'work-'));
    const env = { ...process.env } as Record<string, string>;
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, entryPointArgs('server'), {
      cwd: work,
      env: { ...env, HOST: '127.0.0.1', PORT: String(await freePort()), LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '0' },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      const file = path.join(work, 'data', 'shortlinks.db');
      const deadline = Date.now() + 20_000;
      while (!fs.existsSync(file) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(fs.existsSync(file), 'data/shortlinks.db exists');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('a port in use', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const outcome = await run({ PORT: String(port), DATABASE_URL: `sqlite:${dir}/port.db` }, { cwd: dir });
      assertOneLine(outcome, new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use \\(EADDRINUSE\\)$`));
    } finally {
      blocker.close();
    }
  });
});

describe('rate limits without Redis', () => {
  const metric = async (baseUrl: string): Promise<string | undefined> => {
    const text = await (await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    return /^shortlinks_rate_limits_shared (\d)$/m.exec(text)?.[1];
  };

  test('an unreachable REDIS_URL logs one warning at start, and /metrics says the limits count in memory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-redis-'));
    const port = await freePort();
    const server = await startServer({ DATABASE_URL: `sqlite:${dir}/db.sqlite`, REDIS_URL: `redis://127.0.0.1:${port}`, METRICS_TOKEN: TOKEN });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await fetch(`${server.baseUrl}/api/v1/trial`)).status, 200, 'counted in memory');
      assert.equal(await metric(server.baseUrl), '0');
      const warnings = server
        .output()
        .split('\n')
        .filter((line) => /redis/i.test(line));
      assert.equal(warnings.length, 1, server.output());
      const warning = JSON.parse(warnings[0]!) as { level: number; msg: string; redis: string };
      assert.deepEqual([warning.level, warning.redis], [40, `127.0.0.1:${port}`]);
      assert.match(warning.msg, /Redis unreachable at start, counting in this instance only/);
    } finally {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('/metrics says the limits are shared while Redis answers, and not without REDIS_URL', { skip: redisSkip }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-redis-'));
    const [shared, alone] = await Promise.all([
      startServer({ DATABASE_URL: `sqlite:${dir}/a.sqlite`, REDIS_URL: TEST_REDIS_URL, METRICS_TOKEN: TOKEN, EDGE_LOCATION: `test-${crypto.randomUUID()}` }),
      startServer({ DATABASE_URL: `sqlite:${dir}/b.sqlite`, METRICS_TOKEN: TOKEN }),
    ]);
    try {
      assert.equal((await fetch(`${shared.baseUrl}/api/v1/trial`)).status, 200);
      assert.deepEqual([await metric(shared.baseUrl), await metric(alone.baseUrl)], ['1', '0']);
      assert.equal(/redis/i.test(shared.output()), false, shared.output());
    } finally {
      await Promise.all([shared.stop(), alone.stop()]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
