import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { BUSY_SPACING, MAX_CYCLE_MS, VisitRecorder } from '../../src/analytics/recorder.js';
import type { Visit } from '../../src/analytics/ports.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import type { KyselyRecordingStore } from '../../src/analytics/store/recording-store.js';
import { instanceRow, linkWithKey, recordingStore, stats, storedCounts, visit } from '../helpers/analytics.js';
import { until } from '../helpers/load.js';

const DAY = 86_400_000;
const LIMITS = { freeVisitsPerMonth: 1e9, trackingDailyLimit: 1e9, trackingDailyBotLimit: 1e9 };
const person = { device: 'mobile' as const, browser: 'Chrome', os: 'Android', bot: false };

eachDatabase('the flush', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  /** The link's stored counts of a dimension, every writer's added up: [day, value, s, q, s_bot, q_bot]. */
  const counts = async (linkId: string, dimension: string) =>
    (await storedCounts(h.database, linkId))
      .filter((r) => r.dimension === dimension)
      .map((r) => [r.day, r.value, ...r.n])
      .sort((a, b) => (`${a[0]}\t${a[1]}` < `${b[0]}\t${b[1]}` ? -1 : 1));
  /** A recorder of its own over `store` (a real store, or one wrapped to fail or wait), with `options` changed. */
  const recorderOn = (store: KyselyRecordingStore, options: Partial<ConstructorParameters<typeof VisitRecorder>[0]> = {}) =>
    new VisitRecorder({
      store,
      now: h.clock.now,
      limits: LIMITS,
      flushIntervalMs: 1000,
      heartbeatIntervalMs: 5000,
      bufferMaxVisits: 1000,
      onError: () => {},
      ...options,
    });
  /** A person's visit to `link` through /s/, now. */
  const visitTo = (link: { id: string; accountId: string }, country = 'DE', visitor = 1): Visit => ({
    link: { id: link.id, accountId: link.accountId },
    time: h.clock.now(),
    source: 's',
    agent: person,
    country,
    referrer: 'direct',
    visitor,
  });
  const linkVisits = async (linkId: string) =>
    Number((await h.database.db.selectFrom('links').select('visits').where('id', '=', linkId).executeTakeFirstOrThrow()).visits);

  test("adds to the counts of the link's day, one row per dimension value, and to the link's visits", async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 2, { headers: { referer: 'https://__proto__/' } });
    await visit(h, link.slug, 1, { path: 'q' });
    await h.app.visitRecorder.flush();
    await visit(h, link.slug, 1, { headers: { referer: 'https://__proto__/' } });
    await visit(h, link.slug, 1, { headers: { 'user-agent': 'curl/8.5.0' } });
    await h.app.visitRecorder.flush();
    assert.deepEqual(await counts(link.id, 'referrer'), [
      ['2026-11-15', '__proto__', 3, 0, 0, 0],
      ['2026-11-15', 'direct', 0, 1, 1, 0],
    ]);
    assert.deepEqual(await counts(link.id, 'time'), [['2026-11-15', '12:00', 3, 1, 1, 0]]);
    assert.equal(await linkVisits(link.id), 5);
  });

  test("two instances' flushes into one link and day add to the same rows, and the stats sum them", async () => {
    const link = await linkWithKey(h);
    const h2 = await Harness.start(kind, {}, h.database);
    try {
      h2.clock.ms = h.clock.ms;
      await visit(h, link.slug, 2, { headers: { 'cf-ipcountry': 'DE' } });
      await visit(h2, link.slug, 3, { path: 'q' });
      await Promise.all([h.app.visitRecorder.flush(), h2.app.visitRecorder.flush()]);
      await visit(h2, link.slug, 1);
      await h2.app.visitRecorder.flush();
    } finally {
      await h2.close({ keepDatabase: true });
    }
    assert.deepEqual(await counts(link.id, 'time'), [['2026-11-15', '12:00', 3, 3, 0, 0]]);
    const body = await stats(h, link.id, link.key);
    assert.deepEqual([body.total, body.daily.at(-1).s, body.daily.at(-1).q], [6, 3, 3]);
  });

  test('a flush holding visits of two UTC days adds each to its own day', async () => {
    const link = await linkWithKey(h);
    h.clock.ms = Date.UTC(2026, 10, 16) - 1;
    await visit(h, link.slug, 2);
    h.clock.advance(2);
    await visit(h, link.slug, 3);
    await h.app.visitRecorder.flush();
    assert.deepEqual(await counts(link.id, 'time'), [
      ['2026-11-15', '23:45', 2, 0, 0, 0],
      ['2026-11-16', '00:00', 3, 0, 0, 0],
    ]);
    assert.equal(await linkVisits(link.id), 5);
  });

  test('visits held back past the next midnight still count on their own day', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 1);
    h.clock.advance(DAY);
    await h.app.visitRecorder.flush();
    assert.deepEqual(
      (await counts(link.id, 'time')).map((r) => r[0]),
      [new Date(h.clock.now() - DAY).toISOString().slice(0, 10)],
    );
  });

  test('a flush that fails keeps its visits, and its retry counts each of them once', async () => {
    const link = await linkWithKey(h);
    const store = recordingStore(h.database);
    let failures = 1;
    const failing = {
      ...store,
      flush: (batch: Parameters<typeof store.flush>[0]) => (failures-- > 0 ? Promise.reject(new Error('database away')) : store.flush(batch)),
    };
    const recorder = recorderOn(Object.setPrototypeOf(failing, store) as KyselyRecordingStore);
    recorder.record(visitTo(link));
    await assert.rejects(recorder.flush());
    recorder.record(visitTo(link));
    await recorder.flush();
    await recorder.stop();
    assert.equal(await linkVisits(link.id), 2);
  });

  test('a flush that fails after adding to its tallies writes from then on as a new writer: no visit counted twice or lost', async () => {
    const link = await linkWithKey(h);
    const recorder = recorderOn(recordingStore(h.database));
    const db = h.database.db;
    // The database refuses tally rows, so the flush fails after the visits went into the tallies.
    const refuse = async () => {
      if (kind === 'sqlite') {
        await sql`create trigger refuse_insert before insert on visit_tallies begin select raise(abort, 'tallies away'); end`.execute(db);
        await sql`create trigger refuse_update before update on visit_tallies begin select raise(abort, 'tallies away'); end`.execute(db);
      } else {
        await sql`create function refuse_tally() returns trigger language plpgsql as $$ begin raise exception 'tallies away'; end $$`.execute(db);
        await sql`create trigger refuse_tally before insert or update on visit_tallies for each row execute function refuse_tally()`.execute(db);
      }
    };
    const accept = async () => {
      if (kind === 'sqlite') {
        await sql`drop trigger refuse_insert`.execute(db);
        await sql`drop trigger refuse_update`.execute(db);
      } else {
        await sql`drop trigger refuse_tally on visit_tallies`.execute(db);
        await sql`drop function refuse_tally()`.execute(db);
      }
    };
    recorder.record(visitTo(link, 'DE'));
    await recorder.flush();
    await refuse();
    try {
      recorder.record(visitTo(link, 'FR'));
      await assert.rejects(recorder.flush());
    } finally {
      await accept();
    }
    recorder.record(visitTo(link, 'FR'));
    await recorder.flush();
    await recorder.stop();
    const today = new Date(h.clock.now()).toISOString().slice(0, 10);
    assert.deepEqual(await counts(link.id, 'country'), [
      [today, 'DE', 1, 0, 0, 0],
      [today, 'FR', 2, 0, 0, 0],
    ]);
    assert.equal(await linkVisits(link.id), 3);
  });

  /**
   * A busy instance on a database that takes `delayMs` more a flush: 5,000 visits arrive for every
   * flush. Runs until `flushes` flushes ended; returns each one's start and end.
   */
  const busyFlushes = async (delayMs: number, flushes: number): Promise<[number, number][]> => {
    const link = await linkWithKey(h);
    const store = recordingStore(h.database);
    const spans: [number, number][] = [];
    const busy = () => {
      for (let i = 0; i < 5000; i++) recorder.record(visitTo(link, 'DE', i));
    };
    const slow = {
      flush: async (batch: Parameters<typeof store.flush>[0]) => {
        const started = performance.now();
        await sleep(delayMs);
        const recorded = await store.flush(batch);
        spans.push([started, performance.now()]);
        busy();
        return recorded;
      },
    };
    const recorder = recorderOn(Object.setPrototypeOf(slow, store) as KyselyRecordingStore, {
      flushIntervalMs: 100,
      heartbeatIntervalMs: 60_000,
      bufferMaxVisits: 100_000,
    });
    busy();
    recorder.start();
    await until(`${flushes} flushes`, () => spans.length >= flushes, 30_000);
    await recorder.stop();
    return spans;
  };

  test("a busy instance's flushes space themselves out: the next starts no sooner than BUSY_SPACING times the last one's length after it ended, nor later than MAX_CYCLE_MS after it started", async () => {
    const spans = await busyFlushes(100, 3);
    for (let i = 1; i < 3; i++) {
      const [started, ended] = spans[i - 1]!;
      // Timers may fire a millisecond early.
      assert.ok(
        spans[i]![0] - ended >= Math.min(BUSY_SPACING * (ended - started), MAX_CYCLE_MS - (ended - started)) - 2,
        `flush ${i + 1} started ${spans[i]![0] - ended} ms after one of ${ended - started} ms`,
      );
    }
  });
});

eachDatabase('reaping dead instances', (kind) => {
  // A database of its own: no other recorder there to reap for the one under test.
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase(kind);
  });
  after(async () => db.drop());

  test('an instance that died is reaped while this one keeps flushing visits', { timeout: 30_000 }, async () => {
    let clock = Date.UTC(2026, 10, 15, 12);
    const errors: unknown[] = [];
    const recorder = new VisitRecorder({
      store: recordingStore(db),
      now: () => clock,
      limits: LIMITS,
      flushIntervalMs: 10,
      heartbeatIntervalMs: 50,
      bufferMaxVisits: 100_000,
      onError: (error) => errors.push(error),
    });
    const dead = crypto.randomUUID();
    const instances = () => db.db.selectFrom('recorder_instances').select('id').execute();
    try {
      // Alive when this recorder starts (its first step reaps at once) and silent from then on: it dies
      // three heartbeat intervals later, while visits keep arriving.
      await instanceRow(db, dead, clock);
      recorder.start();
      const arriving = setInterval(() => {
        recorder.record({ link: { id: 'a-link', accountId: null }, time: clock, source: 's', agent: person, country: 'DE', referrer: 'direct', visitor: 7 });
        clock += 5;
      }, 1);
      try {
        await until('the dead instance is reaped', async () => !(await instances()).some((row) => row.id === dead), 10_000);
      } finally {
        clearInterval(arriving);
      }
    } finally {
      await recorder.stop();
    }
    assert.deepEqual(errors, []);
  });
});
