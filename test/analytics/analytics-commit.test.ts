import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase, type Database } from '../../src/platform/database/database.js';
import { FlushUnanswered, type Visit } from '../../src/analytics/ports.js';
import { KyselyRecordingStore } from '../../src/analytics/store/recording-store.js';
import { KyselyStatsStore } from '../../src/analytics/store/stats-store.js';
import { freshDatabase, postgresSkip, type TestDatabase } from '../helpers/databases.js';
import { CommitCutter, PostgresCutter } from '../helpers/faults.js';
import { Harness } from '../helpers/harness.js';
import { linkWithKey, stats, storedCounts, visit } from '../helpers/analytics.js';

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
  before(async () => {
    direct = await freshDatabase('postgres');
    const relay = await CommitCutter.start(direct.url);
    cutter = relay.cutter;
    relayed = await openDatabase(relay.url);
    const database: TestDatabase = { ...relayed, url: relay.url, drop: async () => relayed.close() };
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
      recordedThisMonth: (await new KyselyStatsStore(direct, 5).accountRecording(link.accountId, month)).recordedThisMonth,
    };
  }

  /** Visits recorded by a flush cut at its COMMIT (by whichever flush runs next: the test's or the timer's). */
  async function cutFlush(link: { slug: string }, n: number, when: 'before' | 'after'): Promise<void> {
    await visit(h, link.slug, n);
    const cuts = cutter.cuts;
    cutter.arm(when);
    await h.app.visitRecorder.flush().catch(() => {});
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

  test('while the database cannot tell, its visits wait apart, neither written again nor lost', async () => {
    const link = await linkWithKey(h);
    const outage = await PostgresCutter.connect(direct.url);
    try {
      await visit(h, link.slug, 4);
      cutter.arm('after');
      await h.app.visitRecorder.flush().catch(() => {});
      await outage.close();
      await visit(h, link.slug, 2);
      await assert.rejects(h.app.visitRecorder.flush());
      await assert.rejects(h.app.visitRecorder.flush());
    } finally {
      await outage.reopen();
      await outage.end();
    }
    assert.deepEqual(await counted(link), { total: 6, gaps: 0, linkVisits: 6, storedCountries: [6], recordedThisMonth: 6 });
  });

  test('one that did not take, its instance taken for dead meanwhile, falls in the gap the reaping reports', async () => {
    const link = await linkWithKey(h);
    h.clock.advance(60_000);
    const sent = h.clock.now();
    await cutFlush(link, 2, 'before');
    // Another instance hears nothing from this one for a while, and reaps it.
    h.clock.advance(60_000);
    assert.equal(await new KyselyRecordingStore(direct).reapSilent(h.clock.now(), h.clock.now(), 'another instance'), 1);
    const body = await stats(h, link.id, link.key);
    assert.equal(body.total, 0);
    assert.equal(body.gaps.length, 1);
    assert.equal(body.gaps[0].reason, 'recording_unavailable');
    assert.ok(body.gaps[0].from <= sent && body.gaps[0].to >= sent, `the gap ${JSON.stringify(body.gaps[0])} holds the visits at ${sent}`);
  });

  test('the store writes nothing more until told whether it took', async () => {
    const link = await linkWithKey(h);
    const store = new KyselyRecordingStore(relayed);
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
    assert.equal(await store.settle('by hand'), true);
    assert.equal((await store.flush(batch)).length, 1);
    assert.equal((await stats(h, link.id, link.key)).total, 2);
  });
});
