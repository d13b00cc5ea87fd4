import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { DAY_MS, utcDay } from '../../src/platform/time.js';
import { analyticsDb } from '../../src/analytics/store/analytics-schema.js';
import { openDatabase } from '../../src/platform/database/database.js';
import { migrateToLatest, migrationProvider } from '../../src/platform/database/migrations.js';
import { DayVisits } from '../../src/analytics/day-visits.js';
import { bucketOf, encodeDay } from '../../src/analytics/store/journal.js';
import { linkIds, linkNumbers, numbersOf } from '../../src/analytics/store/link-numbers.js';
import { rollUp } from '../../src/analytics/store/rollup.js';
import { countRows, parseCounts } from '../../src/analytics/store/rollup-counts.js';
import { dayNumber, spanStart, SPANS_MARKER, SPANS_THROUGH, type SpanTables } from '../../src/analytics/store/rollup-spans.js';
import { eachDatabase, freshDatabaseUrl } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { linkWithKey, stats, visit } from '../helpers/analytics.js';

type Db = ReturnType<typeof analyticsDb>;

async function spansThrough(db: Db): Promise<number | undefined> {
  const row = await db.selectFrom('analytics_state').select('value').where('name', '=', SPANS_THROUGH).executeTakeFirst();
  return row === undefined ? undefined : Number(row.value);
}

/**
 * Span rows as they must be: the daily rows of country, device and referrer summed per 7- and 28-day
 * span, of the days up to SPANS_THROUGH.
 */
async function spansFromDaily(db: Db) {
  const through = await spansThrough(db);
  const daily = (await dailyValues(db)).filter((r) => ['country', 'device', 'referrer'].includes(r.dimension) && (through === undefined || dayNumber(r.day) <= through));
  const sums = new Map<string, number>();
  for (const r of daily) {
    for (const span of [7, 28]) {
      const key = [r.link_id, span, spanStart(r.day, span), r.dimension, r.value].join('|');
      sums.set(key, (sums.get(key) ?? 0) + Number(r.count));
    }
  }
  return [...sums].map(([key, count]) => `${key}|${count}`).sort();
}

/** The daily rows' counts, one per value. */
async function dailyValues(db: Db) {
  const rows = await db.selectFrom('visit_rollups').selectAll().execute();
  return rows.flatMap((r) => countRows(r.day, parseCounts(r.counts)).map((v) => ({ ...v, link_id: r.link_id })));
}

async function spanRows(db: Db) {
  const rows = await db.withTables<SpanTables>().selectFrom('visit_rollup_spans').selectAll().execute();
  return rows.flatMap((r) => countRows('', parseCounts(r.counts)).map((v) => [r.link_id, Number(r.span), r.start_day, v.dimension, v.value, v.count].join('|'))).sort();
}

eachDatabase('span rollups kept by the roll-up', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('spans hold every day up to SPANS_THROUGH, which the roll-up moves to yesterday once a day is over', async () => {
    const link = await linkWithKey(h);
    const db = analyticsDb(h.database.db);
    const today = () => dayNumber(utcDay(h.clock.now()));
    const referrers = async () => {
      const body = (await stats(h, link.id, link.key, '?days=90')) as { total: number; referrers: { referrer: string; count: number }[] };
      return [body.total, ...body.referrers.map((r) => `${r.referrer}:${r.count}`).sort()];
    };
    await visit(h, link.slug, 3, { headers: { referer: 'https://a.example/' } });
    assert.deepEqual(await referrers(), [3, 'a.example:3']);
    // The first roll-up of a database that never counted a visit starts the spans at yesterday.
    assert.equal(await spansThrough(db), today() - 1);
    const first = today();
    // Days that fall in different spans: the 28-day span of today and the one before it.
    h.clock.advance(30 * DAY_MS);
    await visit(h, link.slug, 2, { path: 'q', headers: { referer: 'https://b.example/' } });
    await visit(h, link.slug, 1, { headers: { referer: 'https://a.example/' } });
    // Read while the days after the first are being folded into the spans and today is read from daily rows.
    assert.deepEqual(await referrers(), [6, 'a.example:4', 'b.example:2']);
    assert.equal(await spansThrough(db), today() - 1);
    assert.ok(today() - 1 > first);
    const spans = await spanRows(db);
    assert.ok(spans.length > 0);
    assert.deepEqual(spans, await spansFromDaily(db));
    // Today's visits are in no span yet: each span length holds the first day's three, folded once it was over.
    assert.equal(spans.filter((r) => r.includes('|referrer|')).reduce((n, r) => n + Number(r.split('|').at(-1)), 0), 6);
    h.clock.advance(DAY_MS);
    await visit(h, link.slug, 1, { headers: { referer: 'https://b.example/' } });
    assert.deepEqual(await referrers(), [7, 'a.example:4', 'b.example:3']);
    assert.equal(await spansThrough(db), today() - 1);
    assert.deepEqual(await spanRows(db), await spansFromDaily(db));
  });
});

eachDatabase('journal link numbers', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('a link has one number, whichever table, thread or instance asks, also when they ask at once', async () => {
    const db = analyticsDb(h.database.db);
    const ids = Array.from({ length: 1200 }, () => crypto.randomUUID());
    // Overlapping asks at once, as two instances flushing the same new links would (chunks of 500 each).
    const asked = await Promise.all([numbersOf(db, ids.slice(0, 900)), numbersOf(db, ids.slice(300)), numbersOf(db, ids)]);
    const nums = asked[2];
    assert.equal(new Set(nums.values()).size, ids.length, 'distinct links, distinct numbers');
    for (const found of asked) for (const [id, num] of found) assert.equal(num, nums.get(id));
    // A link table asks only for links it has not numbered; a growing table keeps its numbers.
    const first = new DayVisits('2026-11-21', 0);
    for (const id of ids.slice(0, 10)) first.add(id, null, 's', 'DE', { device: 'mobile', browser: 'Safari', bot: false }, 'direct');
    assert.deepEqual([...(await linkNumbers(db, first.table)).subarray(0, 10)], ids.slice(0, 10).map((id) => nums.get(id)));
    const second = new DayVisits('2026-11-21', 0, 16, first.table);
    const fresh = crypto.randomUUID();
    second.add(fresh, null, 'q', 'US', { device: 'bot', browser: 'other', bot: true }, 'direct');
    const grown = await linkNumbers(db, second.table);
    assert.deepEqual([...grown.subarray(0, 10)], ids.slice(0, 10).map((id) => nums.get(id)));
    assert.equal(grown[10], (await numbersOf(db, [fresh])).get(fresh));
    // And back: every number to its link; a number no link has is an error, not a guess.
    assert.deepEqual(await linkIds(db, [grown[10]!, nums.get(ids[0]!)!]), new Map([[grown[10]!, fresh], [nums.get(ids[0]!)!, ids[0]!]]));
    await assert.rejects(linkIds(db, [Math.max(...nums.values()) + 1000]), /names no link/);
  });
});

eachDatabase('roll-up passes', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('a bucket holding more journal rows than one pass takes is folded completely, each visit once', async () => {
    const link = await linkWithKey(h);
    const db = analyticsDb(h.database.db);
    const day = utcDay(h.clock.now());
    const mobile = { device: 'mobile' as const, browser: 'Mobile Safari', bot: false };
    // Two visits per flush, one per source: 250 flushes are two passes and more (120 journal rows each).
    const flushed = new DayVisits(day, h.clock.now());
    flushed.add(link.id, null, 's', 'DE', mobile, 'a.example');
    flushed.add(link.id, null, 'q', 'FR', mobile, 'direct');
    const [bucket, data] = [...encodeDay(flushed, null, await linkNumbers(db, flushed.table))][0]!;
    assert.equal(bucket, bucketOf(link.id));
    const rows = Array.from({ length: 250 }, () => ({ id: crypto.randomUUID(), bucket, created_at: h.clock.now(), entries: '', data }));
    for (let i = 0; i < rows.length; i += 50) await db.insertInto('visit_journal').values(rows.slice(i, i + 50)).execute();
    assert.equal(await rollUp(db, h.database.dialect, h.clock.now()), 500);
    assert.equal((await db.selectFrom('visit_journal').select('id').execute()).length, 0);
    const visits = await db.selectFrom('links').select('visits').where('id', '=', link.id).executeTakeFirstOrThrow();
    assert.equal(Number(visits.visits), 500);
    const daily = (await dailyValues(db)).filter((r) => r.link_id === link.id && ['source', 'country'].includes(r.dimension));
    assert.deepEqual(daily.map((r) => `${r.dimension}:${r.value}:${r.count}`).sort(), ['country:DE:250', 'country:FR:250', 'source:q:250', 'source:s:250']);
    const row = await db.selectFrom('visit_rollups').select(['s', 'q']).where('link_id', '=', link.id).executeTakeFirstOrThrow();
    assert.deepEqual([Number(row.s), Number(row.q)], [250, 250]);
    assert.deepEqual(await spanRows(db), await spansFromDaily(db));
  });

  test("a link's visits are added once per roll-up from its passes' deltas, and deltas a stopped roll-up left are added by the next one", async () => {
    const link = await linkWithKey(h);
    const db = analyticsDb(h.database.db);
    const visits = async () => Number((await db.selectFrom('links').select('visits').where('id', '=', link.id).executeTakeFirstOrThrow()).visits);
    const before = await visits();
    await visit(h, link.slug, 3);
    await h.app.visitRecorder.flush();
    assert.equal(await visits(), before + 3);
    assert.equal((await db.selectFrom('link_visit_deltas').select('n').execute()).length, 0);
    // A roll-up stopped after its passes (a crash): their deltas are in the table, links not yet updated.
    await db.insertInto('link_visit_deltas').values([{ link_id: link.id, n: 4 }, { link_id: link.id, n: 1 }]).execute();
    assert.equal(await visits(), before + 3);
    await rollUp(db, h.database.dialect, h.clock.now());
    assert.equal(await visits(), before + 8);
    await rollUp(db, h.database.dialect, h.clock.now());
    assert.equal(await visits(), before + 8);
  });

  test('after an upgrade (visits counted, no SPANS_THROUGH yet) the first roll-up starts the spans at today', async () => {
    const db = analyticsDb(h.database.db);
    // The test above counted visits: the generation row exists, as on a database of an earlier version.
    await db.deleteFrom('analytics_state').where('name', '=', SPANS_THROUGH).execute();
    await rollUp(db, h.database.dialect, h.clock.now());
    assert.equal(await spansThrough(db), dayNumber(utcDay(h.clock.now())));
  });
});

eachDatabase('migrations 0007 and 0008', (kind) => {
  test('rollups written before them are summed into spans, spans are marked complete, and both become one row per link and day or span', async () => {
    const { url, drop } = await freshDatabaseUrl(kind);
    const database = await openDatabase(url, { migrate: false });
    try {
      const result = await new Migrator({ db: database.db, provider: migrationProvider }).migrateTo('0006_rollup_spans');
      assert.equal(result.error, undefined);
      const db = analyticsDb(database.db);
      const link = crypto.randomUUID();
      const first = Date.UTC(2026, 7, 20);
      const rows = [];
      for (let d = 0; d < 40; d++) {
        const day = utcDay(first + d * DAY_MS);
        rows.push({ link_id: link, dimension: 'country', value: d % 2 ? 'DE' : 'FR', day, count: d + 1 });
        rows.push({ link_id: link, dimension: 'referrer', value: 'direct', day, count: 2 });
        rows.push({ link_id: link, dimension: 'source', value: 's', day, count: d + 3 });
      }
      // Rows of the table as it was before 0008: one per value.
      await database.db.withTables<{ visit_rollups: (typeof rows)[number] }>().insertInto('visit_rollups').values(rows).execute();
      await migrateToLatest(database.db);
      const stored = await db.selectFrom('visit_rollups').selectAll().orderBy('day').execute();
      assert.equal(stored.length, 40);
      assert.deepEqual(stored.map((r) => [Number(r.s), Number(r.q)]), Array.from({ length: 40 }, (_, d) => [d + 3, 0]));
      const values = (await dailyValues(db)).map((r) => `${r.day}|${r.dimension}|${r.value}|${r.count}`).sort();
      assert.deepEqual(values, rows.map((r) => `${r.day}|${r.dimension}|${r.value}|${r.count}`).sort());
      assert.deepEqual(await spanRows(db), await spansFromDaily(db));
      const marker = await db.selectFrom('analytics_state').select('value').where('name', '=', SPANS_MARKER).executeTakeFirst();
      assert.ok(marker);
    } finally {
      await database.close();
      await drop();
    }
  });
});
