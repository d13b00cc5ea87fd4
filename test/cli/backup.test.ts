import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { freshDatabaseUrl, postgresSkip } from '../helpers/databases.js';
import { until } from '../helpers/load.js';
import { createLink, operatorKey } from '../helpers/operator.js';
import { runCli, startServer, type CliResult, type ServerProcess } from '../helpers/processes.js';

const UNLIMITED = { RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_ACCOUNT: '1000000', FREE_LINKS_PER_MONTH: '1000000' };

interface Created {
  id: string;
  slug: string;
  /** When its 200 arrived. */
  at: number;
}

/** Links created one after another, and their redirects followed (visits recorded), until stopped. */
class WriteLoad {
  readonly created: Created[] = [];
  redirects = 0;
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(baseUrl: string, key: string) {
    const creator = async (n: number) => {
      for (let i = 0; this.running; i++) {
        const link = await createLink(baseUrl, key, `https://example.org/backup/${n}/${i}`);
        this.created.push({ ...link, at: Date.now() });
      }
    };
    const visitor = async () => {
      while (this.running) {
        const link = this.created[Math.floor(Math.random() * this.created.length)];
        if (link === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
        else if ((await fetch(`${baseUrl}/s/${link.slug}`, { redirect: 'manual' })).status === 302) this.redirects++;
      }
    };
    this.loops = [creator(1), creator(2), visitor(), visitor()];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

function succeeded(result: CliResult): { file: string; bytes: number } {
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  assert.match(result.stdout, /^[^\n]+\n$/, 'exactly one line on stdout');
  return JSON.parse(result.stdout) as { file: string; bytes: number };
}

function failedWith(result: CliResult, reason: RegExp): void {
  assert.notEqual(result.code, 0);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, /^[^\n]+\n$/, `one line on stderr, got ${JSON.stringify(result.stderr)}`);
  assert.match(result.stderr, reason);
}

describe('backup --to <file>', () => {
  let dir: string;
  let databaseUrl: string;
  let drop: () => Promise<void>;
  let key: string;
  const servers: ServerProcess[] = [];
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-backup-'));
    ({ url: databaseUrl, drop } = await freshDatabaseUrl('sqlite'));
    ({ key } = await operatorKey(databaseUrl));
  });
  afterEach(() => Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL'))));
  after(async () => {
    await drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a backup taken while the server creates links and records visits restores into a fresh server with every link created before it began', async () => {
    const server = await startServer({ DATABASE_URL: databaseUrl, ...UNLIMITED });
    servers.push(server);
    const load = new WriteLoad(server.baseUrl, key);
    let began: number;
    let backup: { file: string; bytes: number };
    try {
      await until('the load has made links and visits', () => load.created.length >= 40 && load.redirects >= 40, 60_000);
      began = Date.now();
      backup = succeeded(await runCli(databaseUrl, 'backup', '--to', path.join(dir, 'under-load.db')));
      const after = load.created.length;
      await until('links are still created after the backup', () => load.created.length >= after + 10, 60_000);
    } finally {
      await load.stop();
    }
    assert.equal(backup.file, path.join(dir, 'under-load.db'));
    assert.equal(backup.bytes, fs.statSync(backup.file).size);
    assert.deepEqual(fs.readdirSync(dir), ['under-load.db'], 'no partial file is left beside it');
    const copy = new SqliteDatabase(backup.file, { readonly: true });
    assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
    copy.close();

    // Restore as the README says: the file copied into place, a server started on it.
    const restoredDir = fs.mkdtempSync(path.join(dir, 'restored-'));
    fs.copyFileSync(backup.file, path.join(restoredDir, 'shortlinks.db'));
    const restored = await startServer({ DATABASE_URL: `sqlite:${path.join(restoredDir, 'shortlinks.db')}`, ...UNLIMITED });
    servers.push(restored);
    const before = load.created.filter((link) => link.at < began);
    assert.ok(before.length >= 40);
    const missing: string[] = [];
    for (const link of before) {
      const res = await fetch(`${restored.baseUrl}/api/v1/links/${link.id}`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status !== 200) missing.push(`${link.id} ${res.status}`);
    }
    assert.deepEqual(missing, [], `of ${before.length} links created before the backup began`);
    const first = before[0]!;
    assert.equal((await fetch(`${restored.baseUrl}/s/${first.slug}`, { redirect: 'manual' })).status, 302);
  });

  test('an existing file is never overwritten, and --to is required', async () => {
    const existing = path.join(dir, 'existing.db');
    fs.writeFileSync(existing, 'precious');
    failedWith(await runCli(databaseUrl, 'backup', '--to', existing), /exists; a backup never overwrites a file/);
    assert.equal(fs.readFileSync(existing, 'utf8'), 'precious');
    failedWith(await runCli(databaseUrl, 'backup'), /--to is required/);
    failedWith(await runCli(databaseUrl, 'backup', '--to', path.join(dir, 'no-such-folder', 'x.db')), /folder .*no-such-folder does not exist/);
  });

  test('on PostgreSQL it names pg_dump and exits non-zero', { skip: postgresSkip }, async () => {
    const postgres = await freshDatabaseUrl('postgres');
    try {
      failedWith(await runCli(postgres.url, 'backup', '--to', path.join(dir, 'pg.db')), /pg_dump/);
      assert.equal(fs.existsSync(path.join(dir, 'pg.db')), false);
    } finally {
      await postgres.drop();
    }
  });
});
