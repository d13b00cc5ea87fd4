import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { VisitRecorder } from '../../src/analytics/recorder.js';
import { analyticsDb } from '../../src/analytics/store/analytics-schema.js';
import { KyselyRecordingStore } from '../../src/analytics/store/recording-store.js';
import { addCounts, parseCounts } from '../../src/analytics/store/rollups.js';
import type { StoredCounts } from '../../src/analytics/ports.js';
import { PendingVisits } from '../../src/analytics/visits.js';
import { openDatabase } from '../../src/platform/database/database.js';
import { EventBus, type VisitsRecorded } from '../../src/platform/events.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { linkWithKey, visit } from '../helpers/analytics.js';
import { until } from '../helpers/load.js';

const DAY = 86_400_000;

eachDatabase('the flush', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  const rows = (linkId: string) =>
    analyticsDb(h.database.db).selectFrom('visit_rollups').select(['day', 's', 'q', 'counts']).where('link_id', '=', linkId).orderBy('day').execute();
  const linkVisits = async (linkId: string) =>
    Number((await h.database.db.selectFrom('links').select('visits').where('id', '=', linkId).executeTakeFirstOrThrow()).visits);

  test("adds its counts to the day's rollup row and the link's visits, so a visit is in the stats as soon as the flush commits", async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 2, { headers: { referer: 'https://__proto__/' } });
    await visit(h, link.slug, 1, { path: 'q' });
    await h.app.visitRecorder.flush();
    await visit(h, link.slug, 1, { headers: { referer: 'https://__proto__/' } });
    await h.app.visitRecorder.flush();
    const [row, ...more] = await rows(link.id);
    assert.equal(more.length, 0, 'one row per link and day');
    assert.deepEqual([row!.day, Number(row!.s), Number(row!.q)], ['2026-11-15', 3, 1]);
    const counts = addCounts({}, parseCounts(row!.counts));
    assert.deepEqual([...counts.referrer!].sort(), [
      ['__proto__', 3],
      ['direct', 1],
    ]);
    assert.deepEqual(Object.fromEntries(counts.source!), { s: 3, q: 1 });
    assert.equal(await linkVisits(link.id), 4);
  });

  test("rewrites its row with the writer's running totals: the row stays one object, as long as its distinct values make it", async () => {
    const link = await linkWithKey(h);
    const flushes = 30;
    const lengths: number[] = [];
    for (let i = 0; i < flushes; i++) {
      await visit(h, link.slug, 1, { headers: { referer: `https://referrer-number-${i % 3}-with-a-long-host-name.example.org/` } });
      await h.app.visitRecorder.flush();
      lengths.push((await rows(link.id))[0]!.counts.length);
    }
    // Once the three referrers are in, only the counts' digits lengthen it (by a few characters).
    assert.ok(Math.max(...lengths.slice(2)) - lengths[2]! < 16, `the row's text stays the same size (${lengths.join(', ')})`);
    const [row, ...more] = await rows(link.id);
    assert.equal(more.length, 0, 'one row per link, day and writer');
    assert.equal(Number(row!.s), flushes);
    const counts = JSON.parse(row!.counts) as StoredCounts;
    assert.deepEqual(
      counts.referrer!.filter((_, i) => i % 2 === 1),
      [flushes / 3, flushes / 3, flushes / 3],
    );
    assert.deepEqual(counts.source, ['s', flushes]);
    const stats = await h.request('GET', `/links/${link.id}/stats`, { key: link.key });
    assert.equal(stats.body.total, flushes);
  });

  /** A recorder beside the harness's, as another instance (or a later run of this one) would run. */
  const otherRecorder = (store = new KyselyRecordingStore(h.database)) =>
    new VisitRecorder({
      store,
      now: h.clock.now,
      limits: h.config.limits,
      flushIntervalMs: 1000,
      heartbeatIntervalMs: 5000,
      bufferMaxVisits: 1000,
      onError: () => {},
    });
  const visitor = { device: 'mobile' as const, browser: 'Chrome', bot: false };
  const total = async (link: { id: string; key: string }) => (await h.request('GET', `/links/${link.id}/stats`, { key: link.key })).body.total as number;

  test("two instances' flushes into one link and day write a row each, and the stats sum them", async () => {
    const link = await linkWithKey(h);
    const recorder = otherRecorder();
    await visit(h, link.slug, 2, { headers: { referer: 'https://a.example/' } });
    for (let i = 0; i < 3; i++) recorder.record({ id: link.id, accountId: link.accountId }, 'q', 'DE', visitor, 'b.example', h.clock.now());
    await Promise.all([h.app.visitRecorder.flush(), recorder.flush()]);
    await visit(h, link.slug, 1, { headers: { referer: 'https://a.example/' } });
    await Promise.all([h.app.visitRecorder.flush(), recorder.flush()]);
    await recorder.stop();
    assert.deepEqual((await rows(link.id)).map((r) => [Number(r.s), Number(r.q)]).sort(), [
      [0, 3],
      [3, 0],
    ]);
    const body = (await h.request('GET', `/links/${link.id}/stats`, { key: link.key })).body;
    assert.equal(body.total, 6);
    assert.deepEqual(
      body.referrers.map((r: { referrer: string; count: number }) => [r.referrer, r.count]),
      [
        ['a.example', 3],
        ['b.example', 3],
      ],
    );
    assert.equal(await linkVisits(link.id), 6);
  });

  test('a flush that fails after adding to its totals leaves its writer behind, so its retry counts every visit once', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 2);
    await h.app.visitRecorder.flush();
    // The heartbeat is the flush's last statement: its rollups are written, then rolled back.
    await sql`alter table recorder_instances rename to recorder_instances_away`.execute(h.database.db);
    try {
      await visit(h, link.slug, 3);
      await assert.rejects(h.app.visitRecorder.flush());
    } finally {
      await sql`alter table recorder_instances_away rename to recorder_instances`.execute(h.database.db);
    }
    await h.app.visitRecorder.flush();
    assert.equal(await total(link), 5);
    assert.equal((await rows(link.id)).length, 2, 'the writer after the failure starts a row of its own');
  });

  test("a batch reaching back to a day before the writer's yesterday goes to a new row, not over the old one", async () => {
    const link = await linkWithKey(h);
    const recorder = otherRecorder();
    const record = () => recorder.record({ id: link.id, accountId: link.accountId }, 's', 'DE', visitor, 'direct', h.clock.now());
    const start = h.clock.now();
    record();
    record();
    await recorder.flush();
    // Three days on, the writer lets go of the first day's totals; then the clock goes back.
    h.clock.advance(3 * DAY);
    record();
    await recorder.flush();
    h.clock.ms = start;
    record();
    await recorder.flush();
    await recorder.stop();
    const first = (await rows(link.id)).filter((r) => r.day === new Date(start).toISOString().slice(0, 10));
    assert.deepEqual(first.map((r) => Number(r.s)).sort(), [1, 2]);
    assert.equal(await linkVisits(link.id), 4);
  });

  test('a writer holding more counts than its bound makes way for a new one at the next flush, and the stats still sum every visit', async () => {
    const link = await linkWithKey(h);
    // Six values make a row's counts (source, country, device, browser, referrer, bot): the bound is passed at once.
    const recorder = otherRecorder(new KyselyRecordingStore(h.database, 5));
    for (let i = 0; i < 3; i++) {
      recorder.record({ id: link.id, accountId: link.accountId }, 's', 'DE', visitor, 'direct', h.clock.now());
      await recorder.flush();
    }
    await recorder.stop();
    assert.deepEqual(
      (await rows(link.id)).map((r) => Number(r.s)),
      [1, 1, 1],
    );
    assert.equal(await total(link), 3);
  });

  test('a flush holding visits of two UTC days adds each to its own day', async () => {
    const link = await linkWithKey(h);
    h.clock.ms = Date.UTC(2026, 10, 16) - 1;
    await visit(h, link.slug, 2);
    h.clock.advance(2);
    await visit(h, link.slug, 3);
    await h.app.visitRecorder.flush();
    assert.deepEqual(
      (await rows(link.id)).map((r) => [r.day, Number(r.s)]),
      [
        ['2026-11-15', 2],
        ['2026-11-16', 3],
      ],
    );
    assert.equal(await linkVisits(link.id), 5);
  });

  test('each flush that records visits announces them once, per link, as visits.recorded', async () => {
    const link = await linkWithKey(h);
    const other = await linkWithKey(h);
    const events = new EventBus();
    const told: VisitsRecorded[] = [];
    events.on('visits.recorded', (event) => told.push(event));
    // A second recorder on the same database, as another instance would run, announcing on its own bus.
    const recorder = new VisitRecorder({
      store: new KyselyRecordingStore(h.database),
      now: h.clock.now,
      limits: h.config.limits,
      flushIntervalMs: 1000,
      heartbeatIntervalMs: 5000,
      bufferMaxVisits: 1000,
      onError: (error) => assert.fail(String(error)),
      onRecorded: (event) => events.emit('visits.recorded', event),
    });
    const visitor = { device: 'mobile' as const, browser: 'Chrome', bot: false };
    for (const [ref, n] of [
      [link, 3],
      [other, 1],
    ] as const) {
      for (let i = 0; i < n; i++) recorder.record({ id: ref.id, accountId: ref.accountId }, 's', 'DE', visitor, 'direct', h.clock.now());
    }
    await recorder.flush();
    await recorder.flush();
    assert.deepEqual(told, [
      {
        at: h.clock.now(),
        links: [
          { linkId: link.id, visits: 3 },
          { linkId: other.id, visits: 1 },
        ],
      },
    ]);
    assert.equal(await linkVisits(link.id), 3);
    await recorder.stop();
  });

  test('visits held back past the next midnight still count on their own day', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 1);
    h.clock.advance(DAY);
    await h.app.visitRecorder.flush();
    const days = (await rows(link.id)).map((r) => r.day);
    assert.equal(days.length, 1);
    assert.equal(days[0], new Date(h.clock.now() - DAY).toISOString().slice(0, 10));
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
      store: new KyselyRecordingStore(db),
      now: () => clock,
      limits: { freeVisitsPerMonth: 1e9, trackingDailyLimit: 1e9 },
      flushIntervalMs: 10,
      heartbeatIntervalMs: 50,
      bufferMaxVisits: 100_000,
      onError: (error) => errors.push(error),
    });
    const dead = crypto.randomUUID();
    const instances = () => analyticsDb(db.db).selectFrom('recorder_instances').select('id').execute();
    try {
      // Alive when this recorder starts (its first step reaps at once) and silent from then on: it dies
      // three heartbeat intervals later, while visits keep arriving.
      await analyticsDb(db.db).insertInto('recorder_instances').values({ id: dead, started_at: clock, beat_at: clock, flushed_to: clock }).execute();
      recorder.start();
      // A visit every millisecond: every step of the recorder finds some waiting.
      const arriving = setInterval(() => {
        recorder.record({ id: 'a-link', accountId: null }, 's', 'DE', { device: 'mobile', browser: 'Chrome', bot: false }, 'direct', clock);
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

test('a flush of more distinct links than a spread of arguments can hold records them all', { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'many-links-'));
  const database = await openDatabase(`sqlite:${path.join(dir, 'many.db')}`, { checkpoints: false });
  try {
    const store = new KyselyRecordingStore(database);
    const pending = new PendingVisits();
    const now = Date.UTC(2026, 10, 15, 12);
    const links = 150_000;
    for (let i = 0; i < links; i++)
      pending.add({ id: `link-${i}`, accountId: null }, 's', 'DE', { device: 'desktop', browser: 'Chrome', bot: false }, 'direct', now);
    const perLink = await store.flush({
      instanceId: 'many',
      startedAt: now,
      now,
      days: await pending.tallied(),
      dropped: [],
      limits: { freeVisitsPerMonth: 1e9, trackingDailyLimit: 1e9 },
    });
    assert.equal(perLink.size, links);
    const { n } = await analyticsDb(database.db)
      .selectFrom('visit_rollups')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(n), links);
  } finally {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
