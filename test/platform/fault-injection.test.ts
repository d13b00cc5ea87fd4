import assert from 'node:assert/strict';
import path from 'node:path';
import pg from 'pg';
import { after, before, describe, test } from 'node:test';
import { freshDatabaseUrl, postgresSkip } from '../helpers/databases.js';
import {
  alive,
  fillDisk,
  holdSqliteReader,
  holdSqliteWriteLock,
  killRedisClients,
  loadedService,
  PostgresCutter,
  smallTmpfs,
  type LoadedService,
} from '../helpers/faults.js';
import { ask, unexpected, until, type LoadKind } from '../helpers/load.js';
import { redisSkip, TEST_REDIS_URL, uniqueEdge } from '../helpers/redis.js';

/**
 * The real server under concurrent load (API reads, link creations, redirects of a cached link) while
 * its storage is cut off, round after round. Throughout, it stays up and answers only success or
 * 503 links_unavailable with Retry-After; after each cut it answers 200 again within seconds.
 */

/** The service answers reads and creations again, each with success. */
async function recovered(s: LoadedService): Promise<void> {
  for (const kind of ['read', 'create'] as LoadKind[]) {
    await until(`a fresh ${kind} succeeds after the cut`, async () => {
      assert.ok(alive(s.server), `the server exited: ${s.server.output()}`);
      return (await ask(kind, s.target)).status === 200;
    });
  }
}

/**
 * The process is up, every answer so far was success or a well-formed 503, the storage faults were
 * logged as such (a warning), never as an unexpected error, and the recording thread lived through them.
 */
function heldUp(s: LoadedService): void {
  assert.ok(alive(s.server), `the server exited: ${s.server.output()}`);
  assert.deepEqual(unexpected(s.load.answers), [], s.server.output());
  const lines = s.server.output().split('\n');
  assert.deepEqual(lines.filter((line) => line.includes('"unexpected error"')).slice(0, 3), []);
  assert.deepEqual(lines.filter((line) => line.includes('recording thread exited')).slice(0, 3), []);
}

/** Waits until an answer of the kind sent after `from` was 503 (the cut has bitten). */
const refusedSince = (s: LoadedService, from: number, kind: LoadKind) =>
  until(`a ${kind} sent during the cut answers 503`, () => s.load.since(from, kind).some((a) => a.status === 503), 20_000);

/** Every redirect the load got is recorded in the link's stats, or a recording gap is reported. */
async function visitsAccountedFor(s: LoadedService): Promise<void> {
  await s.load.stop();
  const served = s.load.answers.filter((a) => a.kind === 'redirect' && a.status === 302).length + 1;
  let last = '';
  const accounted = until(
    `the ${served} redirects served are recorded or reported as a gap`,
    async () => {
      const res = await fetch(`${s.target.baseUrl}/api/v1/links/${s.target.linkId}/stats?days=1`, { headers: { authorization: `Bearer ${s.target.key}` } });
      if (res.status !== 200) return false;
      const body = (await res.json()) as { total: number; gaps: { reason: string }[] };
      last = JSON.stringify({ total: body.total, gaps: body.gaps });
      return body.total === served || (body.total < served && body.gaps.some((g) => g.reason === 'recording_unavailable'));
    },
    20_000,
  );
  await accounted.catch((error: Error) => assert.fail(`${error.message} (last stats: ${last})`));
}

/** The redirects since `from` that were not answered 302, with what they got instead (status 0: no answer in time). */
const failedRedirects = (s: LoadedService, from: number) =>
  s.load
    .since(from, 'redirect')
    .filter((a) => a.status !== 302)
    .map((a) => `${a.status} ${a.body.slice(0, 120)}`);

describe('a PostgreSQL database cut off under load', { skip: postgresSkip }, () => {
  let s: LoadedService;
  let cutter: PostgresCutter;
  let drop: () => Promise<void>;
  before(async () => {
    const fresh = await freshDatabaseUrl('postgres');
    drop = fresh.drop;
    s = await loadedService(fresh.url);
    // The link was made over a minute ago, as a link cached in production is: the change feed, which
    // looks a minute back, would otherwise evict its slug at its first read after the creation
    // (links/redirects.ts), which may fall at the start of an outage and leave the link uncached.
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    await client.query('update link_changes set changed_at = changed_at - 120000');
    await client.end();
    cutter = await PostgresCutter.connect(fresh.url);
  });
  after(async () => {
    await cutter?.reopen().catch(() => {});
    await s?.stop();
    await cutter?.end();
    await drop?.();
  });

  test('terminating every connection again and again leaves the server up, answering 200 or 503, then 200', async () => {
    for (let round = 0; round < 3; round++) {
      for (let cut = 0; cut < 3; cut++) {
        await until('the server is connected to its database', async () => (await cutter.connections()) > 0);
        await cutter.terminate();
      }
      await recovered(s);
      heldUp(s);
    }
  });

  test('while the database refuses connections, cached redirects work and the API answers 503 with Retry-After, then recovers', async () => {
    const from = Date.now();
    await cutter.close();
    try {
      await refusedSince(s, from, 'read');
      await refusedSince(s, from, 'create');
      await until('redirects go on during the outage', () => s.load.since(from, 'redirect').length >= 20);
      assert.deepEqual(failedRedirects(s, from), [], 'a cached redirect failed during the outage');
    } finally {
      await cutter.reopen();
    }
    await recovered(s);
    heldUp(s);
  });

  test('every redirect served through the cuts is recorded or reported as a gap', () => visitsAccountedFor(s));
});

describe('a SQLite database locked by another process under load', () => {
  let s: LoadedService;
  let file: string;
  let drop: () => Promise<void>;
  before(async () => {
    const fresh = await freshDatabaseUrl('sqlite');
    drop = fresh.drop;
    file = fresh.url.slice('sqlite:'.length);
    s = await loadedService(fresh.url);
  });
  after(async () => {
    await s?.stop();
    await drop?.();
  });

  test('another process holding the write lock past the busy timeout, twice, gets 503 with Retry-After, then 200', async () => {
    for (let round = 0; round < 2; round++) {
      const from = Date.now();
      const release = await holdSqliteWriteLock(file);
      try {
        await refusedSince(s, from, 'create');
        assert.deepEqual(failedRedirects(s, from), [], 'a cached redirect failed during the lock');
      } finally {
        await release();
      }
      await recovered(s);
      heldUp(s);
    }
  });

  test('every redirect served through the locks is recorded or reported as a gap', () => visitsAccountedFor(s));
});

describe('a SQLite database whose disk fills up under load', () => {
  const tmpfs = smallTmpfs();
  if (typeof tmpfs === 'string') console.log(`skipping the full-disk case: ${tmpfs}`);
  let s: LoadedService;
  before(async () => {
    if (typeof tmpfs !== 'string') s = await loadedService(`sqlite:${path.join(tmpfs.dir, 'test.db')}`);
  });
  after(async () => {
    await s?.stop();
    if (typeof tmpfs !== 'string') tmpfs.unmount();
  });

  test(
    'writes failing for want of space, twice, get 503 with Retry-After, and succeed again once there is space',
    { skip: typeof tmpfs === 'string' && tmpfs },
    async () => {
      const { dir } = tmpfs as { dir: string };
      for (let round = 0; round < 2; round++) {
        const from = Date.now();
        const release = holdSqliteReader(path.join(dir, 'test.db'));
        const free = fillDisk(dir);
        try {
          await refusedSince(s, from, 'create');
          assert.ok(
            s.load.since(from, 'redirect').every((a) => a.status === 302),
            'a cached redirect failed on the full disk',
          );
        } finally {
          free();
          release();
        }
        await recovered(s);
        heldUp(s);
      }
    },
  );
});

describe('Redis cut off under load', { skip: redisSkip }, () => {
  let s: LoadedService;
  let drop: () => Promise<void>;
  before(async () => {
    const fresh = await freshDatabaseUrl('sqlite');
    drop = fresh.drop;
    s = await loadedService(fresh.url, { REDIS_URL: TEST_REDIS_URL, EDGE_LOCATION: uniqueEdge('faults') });
  });
  after(async () => {
    await s?.stop();
    await drop?.();
  });

  test('killing the rate limiter’s Redis connections again and again leaves the server up, answering 200, and it reconnects', async () => {
    const pid = s.server.child.pid!;
    const connected = () => until('the server is connected to Redis', async () => (await killRedisClients(pid, { dryRun: true })) > 0);
    for (let round = 0; round < 3; round++) {
      await connected();
      const from = Date.now();
      await killRedisClients(pid);
      await until('requests are answered after the kill', () => s.load.since(from, 'read').length >= 5);
      await recovered(s);
      heldUp(s);
    }
    await connected();
  });
});
