/**
 * Lints the OpenAPI document the service serves: builds the app on a throwaway SQLite database, writes
 * GET /api/v1/openapi.json to a temporary file and runs `redocly lint` under `recommended-strict`.
 * `npm run lint:openapi`; exits non-zero, with Redocly's report, when the document has any problem.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';
import { openDatabase } from '../src/platform/database/database.js';

/** The document exactly as clients fetch it. */
async function servedDocument(directory: string): Promise<string> {
  const databaseUrl = `sqlite:${path.join(directory, 'openapi.db')}`;
  const database = await openDatabase(databaseUrl);
  const app = await buildApp({ config: loadConfig({ DATABASE_URL: databaseUrl }), database });
  try {
    const response = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${response.statusCode}`);
    return response.body;
  } finally {
    await app.close();
    await database.close();
  }
}

/** Redocly's own CLI, run by this node; telemetry and update checks off, so it reaches no network. */
function redoclyLint(file: string): { status: number | null; output: string } {
  const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
  const result = spawnSync(process.execPath, [cli, 'lint', '--extends', 'recommended-strict', '--format', 'stylish', file], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
try {
  const file = path.join(directory, 'openapi.json');
  fs.writeFileSync(file, await servedDocument(directory));
  const { status, output } = redoclyLint(file);
  if (status !== 0) {
    process.stderr.write(output);
    process.exitCode = 1;
  } else {
    console.log('openapi.json: valid under redocly recommended-strict');
  }
} finally {
  fs.rmSync(directory, { recursive: true, force: true });
}
