import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { openDatabase, type Database } from '../../src/platform/database/database.js';
import { FlushUnanswered, type Visit } from '../../src/analytics/ports.js';
import { freshDatabase, postgresSkip, type TestDatabase } from '../helpers/databases.js';
import { CommitCutter, PostgresCutter, type CommitCut } from '../helpers/faults.js';
import { Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';
import { linkWithKey, recordingOf, recordingStore, stats, storedCounts, visit } from '../helpers/analytics.js';

/**
 * PostgreSQL only: a connection that drops at a flush's COMMIT leaves the instance not knowing whether
 * the flush took. (SQLite commits in the process: its COMMIT either returns or fails.) The service
 * reaches the database through a relay that cuts a connection at its COMMIT.
 */
describe('a flush whose connection drops at its COMMIT (postgres)', { skip: postgresSkip }, () => {
  let h: Harness;
  let cutter: CommitCutter;
  let direct: TestDatabase;
  let relayed: Database;
  let database: TestDatabase;
  before(async () => {
    direct = await freshDatabase('postgres');
    const relay = await CommitCutter.start(direct.url);
    cutter = relay.cutter;
    relayed = await openDatabase(relay.url);
    database = { ...relayed, url: relay.url, drop: async () => relayed.close() };
    // Compaction and reaping (which commit too) ran at the start and wait an hour: every COMMIT after is a flush's.
    h = await Harness.start('postgres', { ANALYTICS_HEARTBEAT_INTERVAL_MS: '600000' }, database);
  });
  after(async () => {
    await h?.close();
    await cutter?.stop();
    await direct?.drop();
  });

  /** Everything that counts a link's visits: its stats, its all-time total, its stored rows, the account's month. */
  async function counted(link: Awaited<ReturnType<typeof linkWithKey>>) {
    const body = await stats(h, link.id, link.key);
    const stored = await storedCounts(direct, link.id);
    const month = new Date(h.clock.now()).toISOString().slice(0, 7);
    return {
      total: body.total,
      gaps: body.gaps.length,
      linkVisits: (await h.request('GET', `/links/${link.id}`, { key: link.key })).body.visits,
      storedCountries: stored.filter((row) => row.dimension === 'country').map((row) => row.n[0]),
      recordedThisMonth: (await recordingOf(direct, link.accountId, month, 5)).recordedThisMonth,
    };
  }

  /** Visits recorded by a flush cut at its COMMIT (whichever carries them: the test's or the timer's). */
  async function cutFlush(link: { slug: string }, n: number, when: CommitCut): Promise<void> {
    const cuts = cutter.cuts;
    // Armed first: the next COMMIT is that of the flush that carries the visits, the timer's or this one.
    cutter.arm(when);
    try {
      await visit(h, link.slug, n);
      await h.app.visitRecorder.flush().catch(() => {});
    } finally {
      cutter.disarm();
    }
    assert.equal(cutter.cuts, cuts + 1, 'a flush was cut at its COMMIT');
  }

  test('one that took is not written again: its visits, their allowance and the link total count once', async () => {
    const link = await linkWithKey(h);
    await cutFlush(link, 5, 'after');
    assert.deepEqual(await counted(link), { total: 5, gaps: 0, linkVisits: 5, storedCountries: [5], recordedThisMonth: 5 });
  });

  test('one that did not take is written again, once', async () => {
    const link = await linkWithKey(h);
    await cutFlush(link, 3, 'before');
    assert.deepEqual(await counted(link), { total: 3, gaps: 0, linkVisits: 3, storedCountries: [3], recordedThisMonth: 3 });
  });

  test('one still committing when its connection dropped is waited for, and not written again', async () => {
    const link = await linkWithKey(h);
    // The server takes half a second over each flush's COMMIT (a trigger deferred to it), and goes on with it after the connection is gone.
    await sql`create function slow_commit() returns trigger language plpgsql as $$ begin perform pg_sleep(0.5); return null; end $$`.execute(direct.db);
    await sql`create constraint trigger slow_commit after insert on recorder_flushes deferrable initially deferred for each row execute function slow_commit()`.execute(
      direct.db,
    );
    try {
      await cutFlush(link, 4, 'sent');
      assert.deepEqual(await counted(link), { total: 4, gaps: 0, linkVisits: 4, storedCountries: [4], recordedThisMonth: 4 });
    } finally {
      await sql`drop trigger slow_commit on recorder_flushes`.execute(direct.db);
      await sql`drop function slow_commit`.execute(direct.db);
    }
  });

  test('while the database cannot tell, its visits wait apart, neither written again nor lost', async () => {
    const link = await linkWithKey(h);
    const outage = await PostgresCutter.connect(direct.url);
    try {
      await cutFlush(link, 4, 'after');
      await outage.close();
      await visit(h, link.slug, 2);
      await assert.rejects(h.app.visitRecorder.flush());
      await assert.rejects(h.app.visitRecorder.flush());
    } finally {
      await outage.reopen();
      await outage.end();
      // The pools find their terminated connections as their clients hear of it: until then a statement may meet one.
      await until('both pools reach the database again', () =>
        Promise.all([sql`select 1`.execute(direct.db), h.app.visitRecorder.flush()]).then(
          () => true,
          () => false,
        ),
      );
    }
    assert.deepEqual(await counted(link), { total: 6, gaps: 0, linkVisits: 6, storedCountries: [6], recordedThisMonth: 6 });
  });

  test('its instance taken for dead meanwhile, it counts once, whether it took or not', async () => {
    const link = await linkWithKey(h);
    // Another instance hears nothing from this one for a minute, and reaps it, before (as a rule) this one asks.
    const reaped = async () => {
      h.clock.advance(60_000);
      assert.equal(await recordingStore(direct).reapSilent(h.clock.now(), h.clock.now(), 'another instance'), 1);
    };
    await cutFlush(link, 2, 'after');
    await reaped();
    // Its row back (a flush that settles the last, and checks in), then another flush cut, and reaped again.
    await h.app.visitRecorder.flush();
    await cutFlush(link, 3, 'before');
    await reaped();
    const { gaps, ...counts } = await counted(link);
    assert.deepEqual(counts, { total: 5, linkVisits: 5, storedCountries: [5], recordedThisMonth: 5 });
    assert.ok(gaps >= 1, 'the reapings are reported as gaps');
  });

  test('the store writes nothing more until told whether it took', async () => {
    const link = await linkWithKey(h);
    const store = recordingStore(relayed);
    const visit: Visit = {
      link: { id: link.id, accountId: link.accountId },
      time: h.clock.now(),
      source: 'q',
      agent: { device: 'mobile', browser: 'Mobile Safari', os: 'iOS', bot: false },
      country: 'DE',
      referrer: 'direct',
      visitor: 7,
    };
    const batch = { instanceId: 'by hand', startedAt: h.clock.now(), now: h.clock.now(), visits: [visit], dropped: [], limits: h.config.limits };
    cutter.arm('after');
    await assert.rejects(store.flush(batch), (error) => error instanceof FlushUnanswered && error.recorded.length === 1);
    await assert.rejects(store.flush(batch), /settle it first/);
    await assert.rejects(store.beat('by hand', h.clock.now(), h.clock.now(), h.clock.now()), /settle it first/);
    assert.equal(await store.settle('by hand', h.clock.now()), true);
    assert.equal((await store.flush(batch)).length, 1);
    assert.equal((await stats(h, link.id, link.key)).total, 2);
  });

  test('a last flush at shutdown unanswered at its commit is settled, and the instance leaves', async () => {
    // A second instance on the same database, stopped while the first goes on.
    const second = await Harness.start('postgres', { ANALYTICS_HEARTBEAT_INTERVAL_MS: '600000' }, database);
    const link = await linkWithKey(second);
    const cuts = cutter.cuts;
    cutter.arm('after');
    await visit(second, link.slug, 3);
    await second.app.close();
    cutter.disarm();
    assert.equal(cutter.cuts, cuts + 1, 'the last flush was cut at its COMMIT');
    assert.deepEqual(
      (await storedCounts(direct, link.id)).filter((row) => row.dimension === 'country').map((row) => row.n[0]),
      [3],
    );
    const left = await direct.db.selectFrom('recorder_instances').select('id').where('id', '=', second.app.visitRecorder.instanceId).execute();
    assert.deepEqual(left, [], 'it left cleanly');
  });
});
