import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { SHUTDOWN_GRACE_MS_DEFAULT } from '../../src/platform/config.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const UNIT = path.join(ROOT, 'deploy/systemd/shortlinks@.service');
const ANALYZE = '/usr/bin/systemd-analyze';
const skip = fs.existsSync(ANALYZE) ? false : `${ANALYZE} is not installed`;

test('the systemd unit passes systemd-analyze verify without a warning', { skip }, async () => {
  // An instance of the template, as `systemctl enable shortlinks@3001` makes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-unit-'));
  try {
    const instance = path.join(dir, 'shortlinks@3001.service');
    fs.copyFileSync(UNIT, instance);
    const { stderr } = await promisify(execFile)(ANALYZE, ['verify', '--man=no', instance]);
    assert.equal(stderr, '');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the systemd unit stops the service as it expects: SIGTERM, with time for the grace and the drain, restarts on failure, and keeps its data writable under a read-only system', () => {
  const unit = fs.readFileSync(UNIT, 'utf8');
  const settings = new Map(
    unit
      .split('\n')
      .filter((line) => /^\w+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  assert.equal(settings.get('KillSignal'), 'SIGTERM');
  // The default grace and the drain's own limit (15 s, src/server.ts) fit before systemd would SIGKILL.
  assert.ok(Number.parseInt(settings.get('TimeoutStopSec') ?? '0', 10) * 1000 >= SHUTDOWN_GRACE_MS_DEFAULT + 15_000);
  assert.equal(settings.get('Restart'), 'on-failure');
  assert.equal(settings.get('EnvironmentFile'), '/etc/shortlinks/shortlinks.env');
  assert.equal(settings.get('ProtectSystem'), 'strict');
  assert.equal(settings.get('NoNewPrivileges'), 'yes');
  assert.equal(settings.get('ReadWritePaths'), '/var/lib/shortlinks');
  const env = fs.readFileSync(path.join(ROOT, 'deploy/shortlinks.env'), 'utf8');
  assert.match(env, /^DATABASE_URL=sqlite:\/var\/lib\/shortlinks\//m, 'the SQLite file lives in the writable folder');
  assert.match(env, /^TRUST_PROXY=1$/m);
});
