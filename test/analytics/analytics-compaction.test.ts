import crypto from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { COMPACTED, dayNumber } from '../../src/analytics/counts.js';
import { KyselyStatsStore } from '../../src/analytics/store/stats-store.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { instanceRow, recordingStore, stats, UA, visit } from '../helpers/analytics.js';

/**
 * The compaction (src/analytics/store/compaction.ts): a closed day becomes one row with a summary, and
 * blocks of days hold their breakdowns; the rows of writers their instances have left are added into
 * their day's row before it closes. Every answer reads the same before and after, whichever path it
 * takes; an instance that has not flushed past a day keeps it open; rows written after a day's
 * compaction are added to it.
 */
const ENV = {
  TRUST_PROXY: '1',
  // The timer compacts only at start: the tests compact when they mean to (visitRecorder.compact).
  ANALYTICS_HEARTBEAT_INTERVAL_MS: '600000',
};
const READS = [
  '?days=10',
  '?days=10&source=s&bots=exclude',
  '?days=10&source=q&bots=exclude&tz=Asia/Kolkata',
  '?days=10&tz=Asia/Kolkata',
  '?days=10&tz=America/New_York&source=q',
  '?days=10&bots=exclude',
  '?days=7&source=s',
  '?days=10&format=csv',
];

eachDatabase('compaction', (kind) => {
  let h: Harness;
  let link: { key: string; id: string; slug: string };
  const at = async (iso: string, n: number, options: Parameters<typeof visit>[3] = {}, on = h) => {
    on.clock.ms = Date.parse(iso);
    await visit(on, link.slug, n, options);
    await on.app.visitRecorder.flush();
  };
  /** Every read of READS, and the campaign's, as the service answers them now. */
  const answers = async () => {
    await h.app.visitRecorder.flush();
    const out: unknown[] = [];
    for (const query of [...READS.map((q) => `/links/${link.id}/stats${q}`), '/links/stats?tag=spring&days=10'])
      out.push((await h.request('GET', query, { key: link.key })).text.replace(/"refreshedAt":\d+,/, ''));
    return out;
  };
  const rowsOf = (day: string) =>
    h.database.db.selectFrom('visit_tallies').select(['writer', 'version']).where('link_id', '=', link.id).where('day', '=', day).execute();

  /** A service of its own, its clock from 08:00 on the 15th only going forward, with a link titled `title`: runs `body`, then closes it. */
  const alone = async (title: string, body: (solo: Harness, key: string, created: { body: { id: string; slug: string } }) => Promise<void>) => {
    const solo = await Harness.start(kind, ENV);
    try {
      solo.clock.ms = Date.parse('2026-11-15T08:00:00Z');
      const { key } = await solo.account();
      await body(solo, key, await solo.createLink({ target: 'https://example.org/today', title }, { key }));
    } finally {
      await solo.close();
    }
  };

  before(async () => {
    h = await Harness.start(kind, ENV);
    const { key } = await h.account();
    const created = await h.createLink({ target: 'https://example.org/landing', title: 'Poster', tags: 'spring' }, { key });
    link = { key, id: created.body.id, slug: created.body.slug };
    // Six days of visits: people and bots, both URLs, three browsers, referrers and networks; some late in the UTC day.
    await at('2026-11-09T08:10:00Z', 3, { headers: { 'x-forwarded-for': '198.51.100.1', referer: 'https://poster.example/' } });
    await at('2026-11-10T23:40:00Z', 2, { path: 'q', headers: { 'user-agent': UA.windows, 'x-forwarded-for': '198.51.100.2' } });
    await at('2026-11-11T12:00:00Z', 4, { headers: { 'user-agent': UA.googlebot } });
    await at('2026-11-12T04:20:00Z', 5, { path: 'q', headers: { 'user-agent': UA.ipad, 'x-forwarded-for': '203.0.113.9', referer: 'https://mail.example/' } });
    await at('2026-11-13T18:45:00Z', 1, { headers: { 'x-forwarded-for': '198.51.100.3' } });
    await at('2026-11-14T23:59:00Z', 6, { path: 'q', headers: { 'x-forwarded-for': '198.51.100.4' } });
    await at('2026-11-15T11:00:00Z', 2, { headers: { 'x-forwarded-for': '198.51.100.5' } });
    h.clock.ms = Date.parse('2026-11-15T12:00:00Z');
  });
  after(async () => h.close());

  test('a closed day becomes one row with its summary, blocks hold its breakdowns, and every answer reads the same', async () => {
    const before = await answers();
    assert.equal((await rowsOf('2026-11-12')).length, 1);
    assert.notEqual((await rowsOf('2026-11-12'))[0]!.writer, COMPACTED);
    await h.app.visitRecorder.compact();
    for (const day of ['2026-11-09', '2026-11-10', '2026-11-11', '2026-11-12', '2026-11-13', '2026-11-14'])
      assert.deepEqual(
        (await rowsOf(day)).map((r) => r.writer),
        [COMPACTED],
        day,
      );
    // Today's row is the 11:00 writer's, which the instance left at its first flush of 12:00: added up too, though today is open.
    assert.deepEqual(
      (await rowsOf('2026-11-15')).map((r) => r.writer),
      [COMPACTED],
    );
    const sums = await h.database.db
      .selectFrom('visit_sums')
      .select(['level', 'start'])
      .where('link_id', '=', link.id)
      .orderBy('level')
      .orderBy('start')
      .execute();
    // A summary per day, today's included; no block holds today, which is open.
    assert.equal(sums.filter((s) => s.level === 0).length, 7);
    assert.ok(
      sums.some((s) => s.level >= 2) && sums.every((s) => s.level === 0 || dayNumber(s.start) + 2 ** s.level <= dayNumber('2026-11-15')),
      JSON.stringify(sums),
    );
    // A window's closed days are read as summaries, their breakdowns from blocks.
    const window = await new KyselyStatsStore(h.database).linkWindow(link.id, '2026-11-06', '2026-11-15');
    assert.ok(window.blocks.length > 0 && window.blocks.length < 6, `${window.blocks.length} blocks`);
    assert.equal(window.days.length, 7);
    assert.deepEqual(await answers(), before);
    const body = JSON.parse(before[0] as string);
    assert.deepEqual([body.total, body.daily.filter((d: { total: number }) => d.total > 0).length], [23, 7]);
  });

  test('an instance that has not flushed past a day keeps it open; what it writes there later is added to the compacted day', async () => {
    await h.app.visitRecorder.compact();
    const before = JSON.parse((await answers())[0] as string);
    // A second instance whose clock is behind, on 12 November: its row of that day sits beside the compacted one.
    const behind = await Harness.start(kind, ENV, h.database);
    try {
      await at('2026-11-12T10:00:00Z', 3, { headers: { 'x-forwarded-for': '192.0.2.7', referer: 'https://late.example/' } }, behind);
      await h.app.visitRecorder.compact();
      assert.equal((await rowsOf('2026-11-12')).length, 2, 'the day is open while an instance has not flushed past it');
      const added = await answers();
      const body = JSON.parse(added[0] as string);
      assert.equal(body.total, before.total + 3);
      assert.deepEqual(
        body.referrers.find((r: { referrer: string }) => r.referrer === 'late.example'),
        { referrer: 'late.example', count: 3 },
      );
      // Its clock catches up; its next flush carries it past the day, which is compacted again with the blocks over it.
      behind.clock.ms = h.clock.ms;
      await behind.app.visitRecorder.flush();
      await h.app.visitRecorder.compact();
      assert.deepEqual(
        (await rowsOf('2026-11-12')).map((r) => [r.writer, Number(r.version)]),
        [[COMPACTED, 2]],
      );
      assert.deepEqual(await answers(), added);
    } finally {
      await behind.close({ keepDatabase: true });
    }
  });

  test('an instance taken for dead writes the days it had counted as a new writer, so a compacted day is not counted twice', async () => {
    const other = await Harness.start(kind, ENV, h.database);
    try {
      await at('2026-11-13T09:00:00Z', 1, { headers: { 'x-forwarded-for': '192.0.2.8' } }, other);
      const before = JSON.parse((await answers())[0] as string).total;
      // Silent too long, it is reaped: its row goes, and the day it wrote closes and is compacted.
      await h.database.db.deleteFrom('recorder_instances').where('id', '=', other.app.visitRecorder.instanceId).execute();
      await h.app.visitRecorder.compact();
      assert.deepEqual(
        (await rowsOf('2026-11-13')).map((r) => r.writer),
        [COMPACTED],
      );
      // It comes back with one more visit of that day: its old tally must not be written whole over again.
      await at('2026-11-13T09:05:00Z', 1, { headers: { 'x-forwarded-for': '192.0.2.8' } }, other);
      assert.equal(JSON.parse((await answers())[0] as string).total, before + 1);
      other.clock.ms = h.clock.ms;
      await other.app.visitRecorder.flush();
      await h.app.visitRecorder.compact();
      assert.equal(JSON.parse((await answers())[0] as string).total, before + 1);
    } finally {
      await other.close({ keepDatabase: true });
    }
  });

  test('a 90-day window of closed days takes its breakdowns from a few large blocks, each starting at a multiple of its length', async () => {
    const { key } = await h.account();
    const created = await h.createLink({ target: 'https://example.org/season', title: 'Season' }, { key });
    const season = { key, id: created.body.id as string, slug: created.body.slug as string };
    // A visit a day for forty days before the 15th, from a new network each day.
    for (let day = 40; day >= 1; day--) {
      h.clock.ms = Date.parse('2026-11-15T09:00:00Z') - day * 86_400_000;
      await visit(h, season.slug, 1, { headers: { 'x-forwarded-for': `198.18.${day}.1`, referer: `https://site${day % 3}.example/` } });
      await h.app.visitRecorder.flush();
    }
    h.clock.ms = Date.parse('2026-11-15T12:00:00Z');
    const read = async () => {
      await h.app.visitRecorder.flush();
      return (await h.request('GET', `/links/${season.id}/stats?days=90&tz=America/New_York`, { key })).text.replace(/"refreshedAt":\d+,/, '');
    };
    const before = await read();
    await h.app.visitRecorder.compact();
    const window = await new KyselyStatsStore(h.database).linkWindow(season.id, '2026-08-17', '2026-11-15');
    const levels = window.blocks.map((block) => Number(block.stamp.split('\t')[2]));
    assert.ok(levels.some((level) => level >= 4) && window.blocks.length <= 6, `blocks of levels ${levels.join(', ')}`);
    const starts = await h.database.db.selectFrom('visit_sums').select(['level', 'start']).where('link_id', '=', season.id).where('level', '>=', 1).execute();
    for (const block of starts) assert.equal(dayNumber(block.start) % 2 ** block.level, 0, JSON.stringify(block));
    assert.equal(await read(), before);
    assert.equal(JSON.parse(before).total, 40);
  });

  test("a writer's rows hold an hour each; the compaction adds a day's up, and a transaction takes no more than about a hundred rows", async () => {
    const { key } = await h.account();
    const created = await h.createLink({ target: 'https://example.org/hourly', title: 'Hourly' }, { key });
    // Six days in October, a visit and a flush every hour of each: a row per hour.
    const days = ['2026-10-01', '2026-10-02', '2026-10-03', '2026-10-04', '2026-10-05', '2026-10-06'];
    for (const day of days)
      for (let hour = 0; hour < 24; hour++) {
        h.clock.ms = Date.parse(`${day}T${String(hour).padStart(2, '0')}:30:00Z`);
        await visit(h, created.body.slug, 1);
        await h.app.visitRecorder.flush();
      }
    const rowsOf = (day: string) =>
      h.database.db.selectFrom('visit_tallies').select('writer').where('link_id', '=', created.body.id).where('day', '=', day).execute();
    assert.equal((await rowsOf('2026-10-03')).length, 24);
    h.clock.ms = Date.parse('2026-11-15T12:00:00Z');
    await h.app.visitRecorder.flush();
    // 24 rows a day: four days make 96, a fifth would make 120.
    assert.equal(await recordingStore(h.database).compact(true), 4);
    await h.app.visitRecorder.compact();
    for (const day of days) assert.deepEqual(await rowsOf(day), [{ writer: COMPACTED }], day);
    const stats = JSON.parse((await h.request('GET', `/links/${created.body.id}/stats?days=60`, { key })).text);
    assert.deepEqual(
      stats.daily
        .filter((d: { date: string }) => days.includes(d.date))
        .map((d: { total: number; hours: number[] }) => [d.total, d.hours.every((n) => n === 1)]),
      days.map(() => [24, true]),
    );
  });

  test('a link-day of more rows than a transaction takes is compacted alone, and the link-days after it in the next transaction', async () => {
    const { key } = await h.account();
    const created = await h.createLink({ target: 'https://example.org/many', title: 'Many' }, { key });
    const row = (day: string, writer: string) => ({
      link_id: created.body.id as string,
      day,
      writer,
      version: 1,
      counts: JSON.stringify({ time: ['09:00', 1, 0, 0, 0], country: ['DE', 1, 0, 0, 0] }),
      visitors: new Uint8Array(0),
    });
    // 120 writers' rows of the 1st of September (instances restarted again and again), one of the 2nd and one of the 3rd.
    const rows = [...Array.from({ length: 120 }, (_, i) => row('2026-09-01', `w${i}`)), row('2026-09-02', 'w0'), row('2026-09-03', 'w0')];
    for (let i = 0; i < rows.length; i += 40)
      await h.database.db
        .insertInto('visit_tallies')
        .values(rows.slice(i, i + 40))
        .execute();
    h.clock.ms = Date.parse('2026-11-15T12:00:00Z');
    await h.app.visitRecorder.flush();
    const writers = async (day: string) =>
      (await h.database.db.selectFrom('visit_tallies').select('writer').where('link_id', '=', created.body.id).where('day', '=', day).execute()).map(
        (r) => r.writer,
      );
    assert.equal(await recordingStore(h.database).compact(true), 1);
    assert.deepEqual([await writers('2026-09-01'), await writers('2026-09-02')], [[COMPACTED], ['w0']], 'the 1st compacted, the 2nd not yet');
    await h.app.visitRecorder.compact();
    const stats = JSON.parse((await h.request('GET', `/links/${created.body.id}/stats?days=90`, { key })).text);
    assert.deepEqual(
      stats.daily.filter((d: { total: number }) => d.total > 0).map((d: { date: string; total: number }) => [d.date, d.total]),
      [
        ['2026-09-01', 120],
        ['2026-09-02', 1],
        ['2026-09-03', 1],
      ],
    );
    assert.deepEqual(stats.countries, [{ country: 'DE', count: 122 }]);
  });

  test("a read after a flush changed one of a day's hourly rows counts the rows it had read before and the changed one", async () => {
    await alone('Today', async (solo, key, created) => {
      const read = async () => {
        await solo.app.visitRecorder.flush();
        const body = JSON.parse((await solo.request('GET', `/links/${created.body.id}/stats?days=1`, { key })).text);
        return [body.total, body.daily[0].hours.slice(8, 11), body.countries.map((c: { count: number }) => c.count)];
      };
      for (const hour of ['08', '09', '10']) {
        solo.clock.ms = Date.parse(`2026-11-15T${hour}:10:00Z`);
        await visit(solo, created.body.slug, 1);
        await solo.app.visitRecorder.flush();
      }
      assert.deepEqual(await read(), [3, [1, 1, 1], [3]]);
      solo.clock.ms = Date.parse('2026-11-15T10:40:00Z');
      await visit(solo, created.body.slug, 2);
      assert.deepEqual(await read(), [5, [1, 1, 3], [5]]);
      // The next hour: a new row beside the three.
      solo.clock.ms = Date.parse('2026-11-15T11:05:00Z');
      await visit(solo, created.body.slug, 1);
      assert.deepEqual(await read(), [6, [1, 1, 3], [6]]);
    });
  });

  test("the rows of writers their instance has left are added into the day's row before the day closes, the rows of the hour left to their writer", async () => {
    await alone('Today', async (solo, key, created) => {
      const todayRows = async () =>
        (
          await solo.database.db.selectFrom('visit_tallies').select(['writer']).where('link_id', '=', created.body.id).where('day', '=', '2026-11-15').execute()
        ).map((r) => (r.writer === COMPACTED ? COMPACTED : 'writer'));
      const read = async () => {
        await solo.app.visitRecorder.flush();
        const text = (await solo.request('GET', `/links/${created.body.id}/stats?days=1&tz=Asia/Kolkata`, { key })).text.replace(/"refreshedAt":\d+,/, '');
        const csv = (await solo.request('GET', `/links/${created.body.id}/stats?days=1&format=csv`, { key })).text;
        return [text, csv];
      };
      const visitAt = async (iso: string, n: number, network: string) => {
        solo.clock.ms = Date.parse(iso);
        await visit(solo, created.body.slug, n, { headers: { 'x-forwarded-for': network, referer: `https://${network}.example/` } });
        await solo.app.visitRecorder.flush();
      };
      await visitAt('2026-11-15T08:10:00Z', 3, '198.51.100.1');
      await visitAt('2026-11-15T09:10:00Z', 2, '198.51.100.2');
      await visitAt('2026-11-15T10:10:00Z', 1, '198.51.100.3');
      assert.deepEqual(await todayRows(), ['writer', 'writer', 'writer']);
      const before = await read();
      await solo.app.visitRecorder.compact();
      assert.deepEqual((await todayRows()).sort(), [COMPACTED, 'writer'], 'the hours 8 and 9 in one row; the hour of 10 its writer still writes');
      assert.deepEqual(await read(), before);
      // An instance from before writers were listed (its writer NULL) holds the adding up of open days back until it is gone.
      const old = crypto.randomUUID();
      await instanceRow(solo.database, old, solo.clock.ms);
      await visitAt('2026-11-15T11:10:00Z', 1, '198.51.100.4');
      await solo.app.visitRecorder.compact();
      assert.deepEqual((await todayRows()).sort(), [COMPACTED, 'writer', 'writer']);
      await solo.database.db.deleteFrom('recorder_instances').where('id', '=', old).execute();
      await solo.app.visitRecorder.compact();
      assert.deepEqual((await todayRows()).sort(), [COMPACTED, 'writer']);
      // The row of the hour changes beside the compacted one: every visit counted once, by hour, referrer and visitor.
      await visitAt('2026-11-15T11:20:00Z', 2, '198.51.100.4');
      const body = JSON.parse((await read())[0]!);
      assert.deepEqual(
        [body.total, body.daily[0].visitors, body.daily[0].hours.slice(13, 17), body.referrers.map((r: { count: number }) => r.count)],
        [9, 4, [3, 2, 1, 3], [3, 3, 2, 1]],
      );
    });
  });

  test('a read that a compaction overtakes between the keys of its rows and the rows reads again, counting every visit once', async () => {
    await alone('Raced', async (solo, key, created) => {
      // Three hours' rows of today, the first two of writers the instance has left.
      for (const [hour, n] of [
        ['08', 3],
        ['09', 2],
        ['10', 1],
      ] as const) {
        solo.clock.ms = Date.parse(`2026-11-15T${hour}:10:00Z`);
        await visit(solo, created.body.slug, n);
        await solo.app.visitRecorder.flush();
      }
      // The keys read, the compaction commits before the rows are: on SQLite the store reads through the second, read-only connection.
      let overtake = true;
      const overtaking: KyselyPlugin = {
        transformQuery: ({ node }) => node,
        transformResult: async ({ result }) => {
          const row = result.rows[0];
          if (overtake && row !== undefined && Object.keys(row).join() === 'link_id,day,writer,version,level') {
            overtake = false;
            await solo.app.visitRecorder.compact();
          }
          return result;
        },
      };
      const store = new KyselyStatsStore({ ...solo.database, db: solo.database.reads.withPlugin(overtaking) });
      const total = async () => {
        const [day] = (await store.linkDays([created.body.id], '2026-11-15', '2026-11-15')).get(created.body.id)!;
        return day!.quarters.reduce((n, count) => n + count, 0);
      };
      assert.equal(await total(), 6);
      assert.equal(overtake, false);
      // Another instance's row, read and kept; then the compacted row changes, and a compaction overtakes the next read, adding the kept row into it.
      // (The other instance's start, on its own clock, takes this one for dead: it forgets its tallies and carries on as a new writer.)
      const other = await Harness.start(kind, ENV, solo.database);
      try {
        const visitAt = async (on: Harness, iso: string, n: number) => {
          on.clock.ms = Date.parse(iso);
          await visit(on, created.body.slug, n);
          await on.app.visitRecorder.flush();
        };
        await visitAt(other, '2026-11-15T11:10:00Z', 2);
        assert.equal(await total(), 8);
        // This instance's row of 11:00, left at its heartbeat of 12:05, goes into the compacted row; the other's stays, kept by the store.
        await visitAt(solo, '2026-11-15T11:20:00Z', 1);
        await visitAt(solo, '2026-11-15T12:05:00Z', 0);
        await solo.app.visitRecorder.compact();
        await visitAt(other, '2026-11-15T12:10:00Z', 1);
        overtake = true;
        assert.equal(await total(), 10);
        assert.equal(overtake, false);
      } finally {
        await other.close({ keepDatabase: true });
      }
    });
  });

  test("a link-day whose rows an instance listing no writer holds back between the compaction's queries is left as it is", async (t) => {
    // On SQLite the compaction's transaction holds the only writer: no instance starts between its queries.
    if (kind !== 'postgres') return t.skip('SQLite: nothing writes between the queries of a transaction');
    await alone('Held', async (solo, key, created) => {
      for (const hour of ['08', '09', '10']) {
        solo.clock.ms = Date.parse(`2026-11-15T${hour}:05:00Z`);
        await visit(solo, created.body.slug, 1);
        await solo.app.visitRecorder.flush();
        // The hour of 8 goes into the compacted row; the hour of 9 is left for the compaction below.
        if (hour === '09') await solo.app.visitRecorder.compact();
      }
      const rows = async () =>
        (await solo.database.db.selectFrom('visit_tallies').select(['writer', 'version']).where('link_id', '=', created.body.id).execute())
          .map((r) => (r.writer === COMPACTED ? `*${r.version}` : 'writer'))
          .sort();
      assert.deepEqual(await rows(), ['*1', 'writer', 'writer']);
      // The link-days found, an instance from before writers were listed starts on another connection.
      const old = crypto.randomUUID();
      const starting: KyselyPlugin = {
        transformQuery: ({ node }) => node,
        transformResult: async ({ result }) => {
          const row = result.rows[0];
          if (row !== undefined && Object.keys(row).join() === 'link_id,day,rows') {
            await instanceRow(solo.database, old, solo.clock.ms);
          }
          return result;
        },
      };
      assert.equal(await recordingStore({ ...solo.database, db: solo.database.db.withPlugin(starting) }).compact(true), 0);
      assert.deepEqual(await rows(), ['*1', 'writer', 'writer']);
      await solo.database.db.deleteFrom('recorder_instances').where('id', '=', old).execute();
      await solo.app.visitRecorder.compact();
      assert.deepEqual(await rows(), ['*2', 'writer']);
      assert.equal((await stats(solo, created.body.id, key, '?days=1')).total, 3);
    });
  });

  test('an instance taken for dead while idle forgets its tallies at its next heartbeat, so rows added up meanwhile are not counted twice', async () => {
    await alone('Idle', async (solo, key, created) => {
      await visit(solo, created.body.slug, 2);
      await solo.app.visitRecorder.flush();
      // Reaped by another instance: its writer is listed no more, and its rows are added into the day's row.
      await instanceRow(solo.database, crypto.randomUUID(), solo.clock.ms, crypto.randomUUID());
      await solo.database.db.deleteFrom('recorder_instances').where('id', '=', solo.app.visitRecorder.instanceId).execute();
      await solo.app.visitRecorder.compact();
      const writers = await solo.database.db.selectFrom('visit_tallies').select('writer').where('link_id', '=', created.body.id).execute();
      assert.deepEqual(writers, [{ writer: COMPACTED }]);
      // A heartbeat (a flush with nothing to write) brings its row back; then one more visit.
      solo.clock.ms += 1000;
      await solo.app.visitRecorder.flush();
      await visit(solo, created.body.slug, 1);
      await solo.app.visitRecorder.flush();
      await solo.app.visitRecorder.compact();
      assert.equal((await stats(solo, created.body.id, key, '?days=1')).total, 3);
    });
  });

  test('two instances compacting while both count, flush and answer reads count every visit once', async () => {
    const other = await Harness.start(kind, ENV, h.database);
    try {
      const { key } = await h.account();
      const links: { id: string; slug: string }[] = [];
      for (const title of ['North', 'South', 'East'])
        links.push((await h.createLink({ target: 'https://example.org/fair', title, tags: 'fair' }, { key })).body);
      // Thirty days before the 15th: each instance counts a visit of each link each day, from a network of its own.
      for (let day = 30; day >= 1; day--)
        for (const [i, on] of [h, other].entries()) {
          on.clock.ms = Date.parse('2026-11-15T09:00:00Z') - day * 86_400_000 + i * 3_600_000;
          for (const link of links) await visit(on, link.slug, 1, { headers: { 'x-forwarded-for': `198.18.${day}.${i + 1}` } });
          await on.app.visitRecorder.flush();
        }
      h.clock.ms = other.clock.ms = Date.parse('2026-11-15T12:00:00Z');
      await Promise.all([h.app.visitRecorder.flush(), other.app.visitRecorder.flush()]);
      const read = async (link: { id: string }) => JSON.parse((await h.request('GET', `/links/${link.id}/stats?days=40`, { key })).text);
      const closedDays = (body: { daily: { date: string }[] }) => body.daily.filter((d) => d.date < '2026-11-15');
      const before = await Promise.all(links.map(read));
      assert.deepEqual(
        before.map((body) => body.total),
        [60, 60, 60],
      );
      // Both compact (90 link-days: several transactions each) while both count today's visits and flush, and reads come in.
      const counting = async (on: Harness) => {
        for (let round = 0; round < 6; round++) {
          await visit(on, links[round % 3]!.slug, 2);
          await on.app.visitRecorder.flush();
        }
      };
      const reading = async () => {
        for (let round = 0; round < 12; round++) {
          const i = round % 3;
          assert.deepEqual(closedDays(await read(links[i]!)), closedDays(before[i]), `a read during the compaction, ${i}`);
        }
      };
      await Promise.all([h.app.visitRecorder.compact(), other.app.visitRecorder.compact(), counting(h), counting(other), reading()]);
      await Promise.all([h.app.visitRecorder.flush(), other.app.visitRecorder.flush()]);
      await h.app.visitRecorder.compact();
      const rows = await h.database.db
        .selectFrom('visit_tallies')
        .select(['writer'])
        .where(
          'link_id',
          'in',
          links.map((l) => l.id),
        )
        .where('day', '<', '2026-11-15')
        .execute();
      assert.deepEqual([rows.length, rows.every((r) => r.writer === COMPACTED)], [90, true], 'one compacted row per link and closed day');
      const after = await Promise.all(links.map(read));
      assert.deepEqual(
        after.map((body) => body.total),
        [68, 68, 68],
        'the thirty days’ 60 visits and 8 of today (2 instances × 2 rounds × 2 visits)',
      );
      after.forEach((body, i) => assert.deepEqual(closedDays(body), closedDays(before[i]), `link ${i}`));
      const counted = (after[0].daily as { date: string; total: number; visitors: number }[]).filter((d) => d.date < '2026-11-15' && d.total > 0);
      assert.deepEqual(
        [counted.length, counted.every((d) => d.total === 2 && d.visitors === 2)],
        [30, true],
        'each of the thirty days: a visit and a visitor from each instance',
      );
    } finally {
      await other.close({ keepDatabase: true });
    }
  });
});
