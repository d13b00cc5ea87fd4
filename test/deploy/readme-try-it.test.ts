import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { until } from '../helpers/load.js';
import { freePort } from '../helpers/processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The README's block under "## Try it": the first ```sh fence after that heading, as a person copies it. */
function tryItBlock(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Try it\n'));
  const block = /\n```sh\n([\s\S]*?)\n```\n/.exec(section)?.[1];
  assert.ok(readme.includes('\n## Try it\n') && block !== undefined, 'README.md has a ```sh block under "## Try it"');
  return block;
}

test('the README’s “Try it” block, pasted whole into bash, starts the service, follows the redirect and writes the QR SVG', async () => {
  assert.ok(fs.existsSync(path.join(ROOT, 'dist/server.js')), 'dist/ is built (npm run build)');
  // A folder of the project's own: the block writes its database, log and qr.svg where it runs. The
  // installed and built parts are linked in, so its install step finds them there and is skipped.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-try-it-'));
  for (const name of ['package.json', 'node_modules', 'dist']) fs.symlinkSync(path.join(ROOT, name), path.join(dir, name));
  const port = await freePort();
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(port) };
  delete env.DATABASE_URL;
  // Strict where a person's terminal is lenient: any failing command, even inside a pipe, fails the block.
  const bash = spawn('bash', ['-e', '-o', 'pipefail', '-c', tryItBlock()], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  bash.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => bash.on('exit', resolve));
  try {
    const log = path.join(dir, 'shortlinks.log');
    assert.equal(code, 0, `${stdout}\n${stderr}\n${fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : ''}`);
    assert.match(stdout, /^\{"status":"ok","version":"[^"]+"\}$/m, 'it waited until the service was ready');
    assert.match(stdout, /^HTTP\/1\.1 302 Found\r?$/m);
    assert.match(stdout, /^location: https:\/\/example\.org\/spring\r?$/im);
    assert.match(fs.readFileSync(path.join(dir, 'qr.svg'), 'utf8'), /^(<\?xml[^>]*>\s*)?<svg[\s>]/);
    assert.match(stdout, /"status":"paused"/);
    assert.equal(stderr, '');
  } finally {
    // npm start, left running in the background as the block intends, is in bash's process group.
    try {
      process.kill(-bash.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await until(
      'the service the block started is stopped',
      () =>
        fetch(`http://127.0.0.1:${port}/health/live`).then(
          () => false,
          () => true,
        ),
      30_000,
    );
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
