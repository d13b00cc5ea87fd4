import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { until } from '../helpers/load.js';
import { freePort } from '../helpers/processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The processes descending from `pid`, read from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      // The command may hold spaces and parentheses: the fields after its closing one are fixed.
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid !== parent) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start', { skip: process.platform === 'linux' ? false : 'reads /proc' }, () => {
  let dir: string;
  before(() => {
    assert.ok(fs.existsSync(path.join(ROOT, 'dist/server.js')), 'dist/ is built (npm run build)');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-npm-start-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`a ${signal} to the npm process stops the server: its port is freed and no process of it is left`, async () => {
      const port = await freePort();
      const npm = spawn('npm', ['start'], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${dir}/${signal}.db`, SHUTDOWN_GRACE_MS: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise((resolve) => npm.on('exit', resolve));
      let started: number[] = [];
      try {
        await until(
          'npm start answers',
          async () => {
            if (npm.exitCode !== null) throw new Error(`npm start exited: ${output}`);
            return fetch(`http://127.0.0.1:${port}/health/live`).then(
              (res) => res.ok,
              () => false,
            );
          },
          60_000,
        );
        started = descendants(npm.pid!);
        assert.ok(started.length > 0, 'the server runs under npm');
        npm.kill(signal);
        await until('every process npm started is gone', () => started.every((pid) => !alive(pid)), 20_000);
        await exited;
        await assert.rejects(fetch(`http://127.0.0.1:${port}/health/live`), 'the port is freed');
      } finally {
        // Whatever the outcome, nothing this test started is left running.
        for (const pid of [...started, npm.pid!]) if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
    });
  }
});
