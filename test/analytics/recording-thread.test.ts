import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { DayVisits } from '../../src/analytics/day-visits.js';
import { LinkTable } from '../../src/analytics/link-table.js';
import { analyticsDb } from '../../src/analytics/store/analytics-schema.js';
import { BACKGROUND_NICE } from '../../src/platform/database/background-threads.js';
import { RecordingThread, restartDelay } from '../../src/analytics/store/recording-thread.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { linkWithKey, stats, visit } from '../helpers/analytics.js';

/** Nice values of this process's threads (Linux: per thread, field 19 of /proc/self/task/<tid>/stat). */
const threadNices = (): number[] =>
  fs.readdirSync('/proc/self/task').map((tid) => Number(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
const linux = fs.existsSync('/proc/self/task');

/** A day buffer (with a link table of its own) holding `count` visits of one link, as the recorder hands them over. */
function dayOf(day: string, from: number, link: string, count: number): DayVisits {
  const buffer = new DayVisits(day, from, 1, new LinkTable());
  const visitor = { device: 'mobile' as const, browser: 'Chrome', bot: false };
  for (let i = 0; i < count; i++) buffer.add(link, null, 's', 'DE', visitor, 'direct');
  return buffer;
}

eachDatabase('the recording thread', (kind) => {
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase(kind);
  });
  after(async () => db.drop());

  const instances = async () => (await analyticsDb(db.db).selectFrom('recorder_instances').select('id').execute()).map((r) => r.id);
  const settings = { limits: { freeVisitsPerMonth: 5000, trackingDailyLimit: 5000 }, flushIntervalMs: 1000, rollupIntervalMs: 60_000, heartbeatIntervalMs: 5000 };
  const idle = (now: number) => ({ now, days: [], dropped: [] });

  test('visits are made durable by a thread that runs below the event loop’s priority (as does SQLite’s checkpoint thread), and close ends them', { skip: !linux && 'needs /proc' }, async () => {
    const niced = () => threadNices().filter((n) => n === BACKGROUND_NICE).length;
    // Threads set their priority, and end, a moment after they are started or stopped.
    const eventually = async (count: number, what: string) => {
      for (let waited = 0; niced() !== count && waited < 3000; waited += 20) await sleep(20);
      assert.equal(niced(), count, what);
    };
    // This suite's own database has a checkpoint thread (SQLite).
    const before = kind === 'sqlite' ? 1 : 0;
    await eventually(before, 'the suite database’s threads');
    const h = await Harness.start(kind);
    try {
      const link = await linkWithKey(h);
      await visit(h, link.slug, 5);
      assert.equal((await stats(h, link.id, link.key)).total, 5);
      await eventually(before + (kind === 'sqlite' ? 2 : 1), 'threads at the background priority');
    } finally {
      await h.close();
    }
    await eventually(before, 'the threads are gone');
  });

  test('the background threads’ output is not piped through this thread’s streams (V8 would compile the redirect path’s stream functions for them)', async () => {
    // Each worker whose stdio Node pipes into process.stdout or stderr adds an 'unpipe' listener there.
    const pipes = () => process.stdout.listenerCount('unpipe') + process.stderr.listenerCount('unpipe');
    const before = pipes();
    const h = await Harness.start(kind);
    try {
      const link = await linkWithKey(h);
      await visit(h, link.slug, 2);
      assert.equal((await stats(h, link.id, link.key)).total, 2);
      assert.equal(pipes(), before);
    } finally {
      await h.close();
    }
  });

  test('a thread that dies is replaced under a new instance, and the dead one’s silence becomes a gap', async () => {
    let now = Date.UTC(2026, 10, 21, 12);
    const errors: unknown[] = [];
    const thread = new RecordingThread(db, settings, (error) => errors.push(error));
    await thread.start(now);
    const [first] = await instances();
    assert.ok(first);
    // What a crash inside the thread comes to (the thread is private: reached here on purpose).
    await (thread as unknown as { worker: Worker }).worker.terminate();
    await thread.tick(idle((now += 1000)));
    const both = await instances();
    assert.equal(both.length, 2);
    const second = both.find((id) => id !== first)!;
    // Three silent heartbeat intervals later, the new instance reaps the old one.
    for (let i = 0; i < 20; i++) await thread.tick(idle((now += 1000)));
    assert.deepEqual(await instances(), [second]);
    const gaps = await analyticsDb(db.db).selectFrom('visit_gaps').select(['link_id', 'reason', 'from_ms']).execute();
    assert.deepEqual(gaps, [{ link_id: null, reason: 'recording_unavailable', from_ms: Date.UTC(2026, 10, 21, 12) }]);
    await thread.stop(idle((now += 1000)));
    assert.deepEqual(await instances(), []);
    assert.deepEqual(errors.map((e) => (e as Error).message), ['recording thread exited; a new one starts at the next tick']);
  });

  test('deaths soon after a start add up to a wait; after a thread that lived a minute, the next one starts at the next tick', async () => {
    // Before the other tests' times: the gaps of the instances reaped here are not theirs.
    let now = Date.UTC(2026, 10, 20, 12);
    const errors: string[] = [];
    const thread = new RecordingThread(db, settings, (error) => errors.push((error as Error).message));
    const die = () => (thread as unknown as { worker: Worker }).worker.terminate();
    await thread.start(now);
    // Threads that die a tick after they start (as a batch that crashes them would make them) are in a row.
    await die();
    await thread.tick(idle((now += 1000)));
    await die();
    await thread.tick(idle((now += 1000)));
    // Two seconds' wait: this tick starts none, the one after does.
    await thread.tick(idle((now += 1000)));
    await thread.tick(idle((now += 1000)));
    for (let lived = 0; lived < 60; lived++) await thread.tick(idle((now += 1000)));
    await die();
    await thread.tick(idle((now += 1000)));
    await thread.stop(idle((now += 1000)));
    const restarts = errors.map((m) => m.replace('recording thread exited; a new one starts ', ''));
    assert.deepEqual(restarts, ['at the next tick', 'in 2 s (2 threads exited in a row)', 'at the next tick']);
  });

  test('a handover copies the visits to the thread: the day buffer\'s memory is not detached', async () => {
    // Transferring it would detach it, and the first detach in a process deoptimizes Node's HTTP and
    // stream code for good (day-visits.ts, DayVisitsMessage).
    let now = Date.UTC(2026, 10, 23, 12);
    const thread = new RecordingThread(db, settings, () => {});
    await thread.start(now);
    try {
      const day = dayOf('2026-11-23', now, 'link-y', 5);
      await thread.tick({ now: (now += 1000), days: [day], dropped: [] });
      assert.equal(thread.released, 5, 'the thread took the visits');
      assert.equal(day.toMessage(0).words.length, 15, 'the sender still reads its words');
    } finally {
      await thread.stop(idle((now += 1000)));
    }
  });

  test('visits a dying thread held become a service-wide gap from its last durable flush', async () => {
    const t0 = Date.UTC(2026, 10, 22, 12);
    let now = t0;
    const thread = new RecordingThread(db, settings, () => {});
    await thread.start(now);
    await thread.tick(idle((now += 1000)));
    // A real failure, not a mock (as in analytics-outage.test.ts): the flush's first table is renamed away.
    await sql`alter table visit_days rename to visit_days_away`.execute(db.db);
    try {
      const day = dayOf('2026-11-22', now, 'link-x', 3);
      await thread.tick({ now: (now += 1000), days: [day], dropped: [] });
      assert.equal(thread.released, 0, 'the thread holds the visits of the failed flush');
      await (thread as unknown as { worker: Worker }).worker.terminate();
      assert.equal(thread.released, 3, 'what it held no longer counts against the buffer');
    } finally {
      await sql`alter table visit_days_away rename to visit_days`.execute(db.db);
    }
    await thread.tick(idle((now += 1000)));
    await thread.stop(idle((now += 1000)));
    const gaps = await analyticsDb(db.db).selectFrom('visit_gaps').select(['link_id', 'reason', 'from_ms', 'to_ms']).where('from_ms', '>=', t0).execute();
    assert.deepEqual(gaps, [{ link_id: null, reason: 'recording_unavailable', from_ms: t0 + 1000, to_ms: t0 + 2000 }]);
  });
});

test('threads that keep dying are started again after a growing wait, not at every tick; a skipped tick holds none of its visits', async () => {
  const t0 = Date.UTC(2026, 10, 21, 12);
  // A database the thread cannot open: each thread dies as it starts (the server's own start checked
  // the database, so in production this is a database that went away, or a broken deployment).
  const notADirectory = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'recording-')), 'file');
  fs.writeFileSync(notADirectory, '');
  const unopenable = `sqlite:${notADirectory}/recording.db`;
  const settings = { limits: { freeVisitsPerMonth: 5000, trackingDailyLimit: 5000 }, flushIntervalMs: 1000, rollupIntervalMs: 60_000, heartbeatIntervalMs: 5000 };
  const thread = new RecordingThread({ url: unopenable, waitingWriters: undefined }, settings, () => {});
  const tick = async (at: number, visits = 0) => {
    const outcome = await thread.tick({ now: at, days: visits > 0 ? [dayOf('2026-11-21', at - 500, 'link-x', visits)] : [], dropped: [] }).then(
      () => 'skipped',
      (error: Error) => error.message,
    );
    return outcome.replace('recording thread exited; a new one starts ', '');
  };
  // Each tick that starts a thread sees it die; the waits after deaths in a row double (restartDelay).
  assert.equal(await tick(t0), 'at the next tick');
  assert.equal(await tick(t0 + 1000), 'in 2 s (2 threads exited in a row)');
  assert.equal(await tick(t0 + 2000, 3), 'skipped');
  assert.equal(thread.released, 3, 'visits of a tick without a thread are not held');
  assert.equal(await tick(t0 + 3000), 'in 4 s (3 threads exited in a row)');
  for (const at of [4000, 5000, 6000]) assert.equal(await tick(t0 + at), 'skipped');
  assert.equal(await tick(t0 + 7000), 'in 8 s (4 threads exited in a row)');
  assert.deepEqual([1, 2, 3, 4, 7, 8, 9].map(restartDelay), [0, 2000, 4000, 8000, 60_000, 60_000, 60_000]);
  await thread.stop({ now: t0 + 8000, days: [], dropped: [] }).catch(() => {});
});
