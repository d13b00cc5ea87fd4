import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { VisitRecorder } from '../../src/analytics/recorder.js';
import { analyticsDb } from '../../src/analytics/store/analytics-schema.js';
import { KyselyRecordingStore } from '../../src/analytics/store/recording-store.js';
import { COMPACT_AT_CHARS, parseCounts } from '../../src/analytics/store/rollups.js';
import { EventBus, type VisitsRecorded } from '../../src/platform/events.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { linkWithKey, visit } from '../helpers/analytics.js';

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
    const counts = parseCounts(row!.counts);
    assert.deepEqual(Object.entries(counts.referrer!).sort(), [
      ['__proto__', 3],
      ['direct', 1],
    ]);
    assert.deepEqual({ ...counts.source }, { s: 3, q: 1 });
    assert.equal(await linkVisits(link.id), 4);
  });

  test('appends its counts to the row, and the flush that makes the row longer than COMPACT_AT_CHARS sums it into one object again', async () => {
    const link = await linkWithKey(h);
    const flushes = 60;
    const lengths: number[] = [];
    for (let i = 0; i < flushes; i++) {
      await visit(h, link.slug, 1, { headers: { referer: `https://referrer-number-${i % 3}-with-a-long-host-name.example.org/` } });
      await h.app.visitRecorder.flush();
      lengths.push((await rows(link.id))[0]!.counts.length);
    }
    // Each flush appends about 200 characters: appended whole, the text would pass the bound twice over.
    assert.ok(lengths[0]! * flushes > 2 * COMPACT_AT_CHARS, 'the flushes append enough to need compaction');
    assert.ok(Math.max(...lengths) < COMPACT_AT_CHARS + 2 * lengths[0]!, `the row's text stays bounded (longest ${Math.max(...lengths)})`);
    const [row] = await rows(link.id);
    assert.equal(Number(row!.s), flushes);
    const counts = parseCounts(row!.counts);
    assert.deepEqual(Object.values(counts.referrer!), [flushes / 3, flushes / 3, flushes / 3]);
    assert.deepEqual({ ...counts.source }, { s: flushes });
    const stats = await h.request('GET', `/links/${link.id}/stats`, { key: link.key });
    assert.equal(stats.body.total, flushes);
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
