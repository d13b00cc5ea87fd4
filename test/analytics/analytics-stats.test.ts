import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Dimension, RollupRow } from '../../src/analytics/ports.js';
import { utcDay } from '../../src/platform/time.js';
import type { Kysely } from 'kysely';
import { analyticsDb, type AnalyticsDB } from '../../src/analytics/store/analytics-schema.js';
import { KyselyAnalyticsStore } from '../../src/analytics/store/analytics-store.js';
import { dayNumber, planWindow, spanStart, SPAN_DIMENSIONS, SPAN_LENGTHS, SPANS_MARKER, SPANS_THROUGH, type SpanTables } from '../../src/analytics/store/rollup-spans.js';
import { countRows, packDays, packSpans, parseCounts } from '../../src/analytics/store/rollup-counts.js';
import { eachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';
import { ALL_SCOPES, Harness } from '../helpers/harness.js';
import { linkWithKey, stats, visit } from '../helpers/analytics.js';

const DAY = 86_400_000;
const STATS_FIELDS = ['countries', 'daily', 'devices', 'from', 'gaps', 'referrers', 'refreshedAt', 'to', 'total'];

// Tests that move the clock run last and only forward: rate limits must never see time run backwards.
eachDatabase('stats API', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('stats JSON has exactly the documented fields and one daily entry per UTC day, zeros included', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 2, { path: 'q' });
    const body = await stats(h, link.id, link.key, '?days=7');
    assert.deepEqual(Object.keys(body).sort(), STATS_FIELDS);
    assert.equal(body.to, h.clock.now());
    assert.equal(body.from, Date.UTC(2026, 10, 9));
    assert.equal(body.refreshedAt, h.clock.now());
    assert.equal(body.daily.length, 7);
    assert.deepEqual(body.daily[0], { date: '2026-11-09', total: 0, s: 0, q: 0 });
    assert.deepEqual(body.daily[6], { date: '2026-11-15', total: 2, s: 0, q: 2 });
    // fetch sends the user agent "node": a script, so a bot.
    assert.deepEqual(body.devices, [{ device: 'bot', count: 2 }]);
    assert.deepEqual(body.gaps, []);
    const defaults = await stats(h, link.id, link.key);
    assert.equal(defaults.daily.length, 30);
    assert.equal((await stats(h, link.id, link.key, '?days=90')).daily.length, 90);
  });

  test('referrers list the top 50 by count and sum the rest into "other"', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 3, { headers: { referer: 'https://top.example/' } });
    for (let i = 0; i < 55; i++) await visit(h, link.slug, 1, { headers: { referer: `https://site${String(i).padStart(2, '0')}.example/` } });
    const body = await stats(h, link.id, link.key);
    assert.equal(body.referrers.length, 51);
    assert.deepEqual(body.referrers[0], { referrer: 'top.example', count: 3 });
    assert.deepEqual(body.referrers[1], { referrer: 'site00.example', count: 1 });
    assert.deepEqual(body.referrers[50], { referrer: 'other', count: 6 });
  });

  test('referrer hosts named like members of Object.prototype are counted like any other, in JSON and CSV', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 2, { headers: { referer: 'https://constructor/' } });
    await visit(h, link.slug, 1, { headers: { referer: 'https://__proto__/' } });
    await stats(h, link.id, link.key);
    // A second roll-up adds to the stored row of the day.
    await visit(h, link.slug, 1, { headers: { referer: 'https://constructor/' } });
    await visit(h, link.slug, 1, { headers: { referer: 'https://__proto__/' } });
    const body = await stats(h, link.id, link.key);
    assert.deepEqual(body.referrers, [
      { referrer: 'constructor', count: 3 },
      { referrer: '__proto__', count: 2 },
    ]);
    const csv = await h.request('GET', `/links/${link.id}/stats?format=csv`, { key: link.key });
    assert.match(csv.text, /,referrer,__proto__,2,/);
    assert.match(csv.text, /,referrer,constructor,3,/);
  });

  test('CSV has the documented header, one row per day and dimension value, and a named attachment', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 2);
    await h.app.visitRecorder.flush();
    const res = await h.request('GET', `/links/${link.id}/stats?format=csv&days=3`, { key: link.key });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="stats-${link.slug}-2026-11-13-2026-11-15.csv"`);
    assert.deepEqual(res.text.split('\r\n'), [
      'kind,date,dimension,value,count,gap_from,gap_to,gap_reason',
      'visits,2026-11-15,bot,yes,2,,,',
      'visits,2026-11-15,browser,other,2,,,',
      'visits,2026-11-15,country,unknown,2,,,',
      'visits,2026-11-15,device,bot,2,,,',
      'visits,2026-11-15,referrer,direct,2,,,',
      'visits,2026-11-15,source,s,2,,,',
      '',
    ]);
  });

  test('days outside 1..90 and unknown formats or parameters are 400 invalid_request', async () => {
    const link = await linkWithKey(h);
    for (const query of ['days=0', 'days=91', 'days=1.5', 'days=abc', 'days=-1', 'format=xml', 'format=', 'other=1']) {
      const res = await h.request('GET', `/links/${link.id}/stats?${query}`, { key: link.key });
      assert.equal(res.status, 400, query);
      assert.deepEqual(res.body, { error: 'invalid_request' });
    }
    assert.equal((await h.request('GET', `/links/not-a-uuid/stats`, { key: link.key })).status, 400);
  });

  test('a day outside the window is not counted', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 1);
    await h.app.visitRecorder.flush();
    h.clock.advance(2 * DAY);
    const body = await stats(h, link.id, link.key, '?days=2');
    assert.equal(body.total, 0);
    assert.equal((await stats(h, link.id, link.key, '?days=3')).total, 1);
  });

  test('stats need analytics:read, or the trial token of that very link', async () => {
    const link = await linkWithKey(h);
    const noScope = await h.keyFor(link.accountId, 'links:read');
    assert.deepEqual((await h.request('GET', `/links/${link.id}/stats`, { key: noScope })).body, { error: 'api_scope_required' });
    assert.equal((await h.request('GET', `/links/${link.id}/stats`)).status, 401);
    const stranger = await h.account(ALL_SCOPES);
    assert.equal((await h.request('GET', `/links/${link.id}/stats`, { key: stranger.key })).status, 404);
    const trial = await h.createLink({ target: 'https://example.org/trial' });
    const headers = { 'x-service-trial-token': trial.body.trialToken };
    await visit(h, trial.body.slug, 2);
    await h.app.visitRecorder.flush();
    const own = await h.request('GET', `/links/${trial.body.id}/stats`, { headers });
    assert.equal(own.status, 200);
    assert.equal(own.body.total, 2);
    assert.equal((await h.request('GET', `/links/${link.id}/stats`, { headers })).status, 403);
    h.clock.advance(8 * DAY);
    assert.deepEqual((await h.request('GET', `/links/${trial.body.id}/stats`, { headers })).body, { error: 'link_expired' });
  });

  test('the OpenAPI document describes the stats shapes', async () => {
    const doc = (await h.request('GET', '/openapi.json')).body;
    const op = doc.paths['/links/{id}/stats'].get;
    const json = op.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(json.properties).sort(), STATS_FIELDS);
    assert.equal(json.properties.daily.items.additionalProperties, false);
    assert.ok(op.responses['200'].content['text/csv']);
  });
});

test('a stats window is read as aligned spans plus or minus days, each of its days counted once, 90 days in at most 8 reads', () => {
  for (let end = 0; end < 28; end++) {
    for (let days = 1; days <= 90; days++) {
      const to = Date.UTC(2026, 10, 15) + end * DAY;
      const window = Array.from({ length: days }, (_, i) => utcDay(to - (days - 1 - i) * DAY));
      const plan = planWindow(window[0]!, window.at(-1)!);
      const times = new Map<string, number>();
      const count = (day: string, n: number) => times.set(day, (times.get(day) ?? 0) + n);
      let reads = 0;
      for (const d of plan.days) {
        for (let t = Date.parse(d.from); t <= Date.parse(d.to); t += DAY) {
          count(utcDay(t), d.sign);
          if (t <= to) reads++; // days after the window have no rows yet: nothing to read
        }
      }
      for (const { span, starts, sign } of plan.spans) {
        for (const start of starts) {
          assert.equal(spanStart(start, span), start, `${start} starts a span of ${span} days`);
          for (let i = 0; i < span; i++) count(utcDay(Date.parse(start) + i * DAY), sign);
          reads++;
        }
      }
      assert.deepEqual([...times].filter(([, n]) => n !== 0).sort(), window.map((day) => [day, 1]), `${days} days to ${utcDay(to)}`);
      if (days === 90) assert.ok(reads <= 8, `${reads} reads for 90 days to ${utcDay(to)}`);
    }
  }
});

eachDatabase('stats totals over span rollups', (kind) => {
  let database: TestDatabase;
  before(async () => {
    database = await freshDatabase(kind);
  });
  after(async () => database.drop());

  test('span rows are read only once the marker says they are complete, and then give the same totals as daily rows for every window', async () => {
    const { db, link, daily } = await loadDaily(database);
    // Span rows that disagree with the daily rows: ignored while no marker says spans are complete.
    await insertSpans(db, spanRows(daily).map((r) => ({ ...r, count: r.count + 1000 })));
    // A database migrated from daily rows alone is marked complete by migration 0007; this test starts unmarked.
    await db.deleteFrom('analytics_state').where('name', '=', SPANS_MARKER).execute();
    const store = new KyselyAnalyticsStore(database, 0);
    const dimensions = SPAN_DIMENSIONS as Dimension[];
    const totals = (w: { end: number; days: number }) => store.totals(link, dimensions, utcDay(w.end - (w.days - 1) * DAY), utcDay(w.end)).then(sorted);
    await store.freshness();
    const fromDaily: RollupRow[][] = [];
    for (const w of WINDOWS) {
      const rows = await totals(w);
      assert.deepEqual(rows, expectedTotals(daily, link, w.end, w.days));
      fromDaily.push(rows);
    }
    await db.deleteFrom('visit_rollup_spans').execute();
    await insertSpans(db, spanRows(daily));
    await db.insertInto('analytics_state').values({ name: SPANS_MARKER, value: 1 }).execute();
    await store.freshness();
    for (const [i, w] of WINDOWS.entries()) {
      assert.deepEqual(await totals(w), fromDaily[i], `${w.days} days to ${utcDay(w.end)}`);
      const both = await store.window(link, dimensions, utcDay(w.end - (w.days - 1) * DAY), utcDay(w.end));
      assert.deepEqual(sorted(both.totals), fromDaily[i]);
      assert.equal(both.daily.length, daily.filter((r) => r.link_id === link && r.dimension === 'source' && r.day >= utcDay(w.end - (w.days - 1) * DAY) && r.day <= utcDay(w.end)).length);
    }
  });
});

eachDatabase('stats totals over spans that end before today', (kind) => {
  let database: TestDatabase;
  before(async () => {
    database = await freshDatabase(kind);
  });
  after(async () => database.drop());

  test('with spans holding only the days up to SPANS_THROUGH, every window still gives the daily totals', async () => {
    const { db, link, daily } = await loadDaily(database);
    const store = new KyselyAnalyticsStore(database, 0);
    const dimensions = SPAN_DIMENSIONS as Dimension[];
    // Before every window, inside them, and after the last day with rows.
    for (const offset of [40, 99, 101, 104, 115, 127, 128, 140]) {
      await spansThrough(db, daily, FIRST / DAY + offset);
      await store.freshness();
      for (const w of WINDOWS) {
        const from = utcDay(w.end - (w.days - 1) * DAY);
        assert.deepEqual(sorted(await store.totals(link, dimensions, from, utcDay(w.end))), expectedTotals(daily, link, w.end, w.days), `through day ${offset}: ${w.days} days to ${utcDay(w.end)}`);
      }
    }
  });

  test('a read planned before a day was folded into the spans notices it in the same statement and plans again', async () => {
    const db = analyticsDb(database.db).withTables<SpanTables>();
    const store = new KyselyAnalyticsStore(database, 0);
    const link = (await db.selectFrom('visit_rollups').select('link_id').executeTakeFirstOrThrow()).link_id;
    const stored = await db.selectFrom('visit_rollups').selectAll().execute();
    const daily = stored.flatMap((r) => countRows(r.day, parseCounts(r.counts)).map((v) => ({ ...v, link_id: r.link_id })));
    const end = FIRST + 120 * DAY;
    await spansThrough(db, daily, end / DAY - 1);
    await store.freshness();
    // Another instance folds the last day after this instance read SPANS_THROUGH.
    await spansThrough(db, daily, end / DAY);
    const rows = await store.totals(link, SPAN_DIMENSIONS as Dimension[], utcDay(end - 29 * DAY), utcDay(end));
    assert.deepEqual(sorted(rows), expectedTotals(daily, link, end, 30));
  });
});

type DailyRow = { link_id: string; dimension: string; value: string; day: string; count: number };
type SpanDb = Kysely<AnalyticsDB & SpanTables>;

/** First day of the rows of the span suites, and the windows they read: 1 to 90 days ending on 28 days. */
const FIRST = Date.UTC(2026, 6, 1);
const WINDOWS = Array.from({ length: 28 }, (_, end) => [1, 6, 13, 30, 61, 90].map((days) => ({ end: FIRST + (101 + end) * DAY, days }))).flat();

/** Daily rows and span rows as the roll-ups keep them: one per link and day or span (rollup-counts.ts). */
async function insertDaily(db: SpanDb, rows: DailyRow[]): Promise<void> {
  const packed = packDays(rows);
  for (let i = 0; i < packed.length; i += 500) await db.insertInto('visit_rollups').values(packed.slice(i, i + 500)).execute();
}

async function insertSpans(db: SpanDb, rows: SpanRow[]): Promise<void> {
  const packed = packSpans(rows);
  for (let i = 0; i < packed.length; i += 500) await db.insertInto('visit_rollup_spans').values(packed.slice(i, i + 500)).execute();
}

/** 130 days of daily rows from FIRST for the returned link and another one. */
async function loadDaily(database: TestDatabase) {
  const db = analyticsDb(database.db).withTables<SpanTables>();
  const link = crypto.randomUUID();
  const daily = rollupRows([link, crypto.randomUUID()], FIRST, 130);
  await insertDaily(db, daily);
  return { db, link, daily };
}

/** Spans as the roll-ups leave them when SPANS_THROUGH is `through`: the daily rows up to that day. */
async function spansThrough(db: SpanDb, daily: DailyRow[], through: number): Promise<void> {
  await db.deleteFrom('visit_rollup_spans').execute();
  await insertSpans(db, spanRows(daily.filter((r) => dayNumber(r.day) <= through)));
  await db.insertInto('analytics_state').values({ name: SPANS_THROUGH, value: through }).onConflict((oc) => oc.column('name').doUpdateSet({ value: through })).execute();
}

/** Values that come and go from day to day, from a seeded generator: the same rows on every run. */
function rollupRows(links: string[], first: number, days: number): DailyRow[] {
  let seed = 7;
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  const values: Record<string, string[]> = {
    country: ['DE', 'FR', 'US', 'unknown'],
    device: ['mobile', 'desktop', 'bot'],
    referrer: Array.from({ length: 12 }, (_, i) => `site${i}.example`),
    source: ['s', 'q'],
  };
  const rows: DailyRow[] = [];
  for (const link_id of links) {
    for (let d = 0; d < days; d++) {
      for (const [dimension, names] of Object.entries(values)) {
        for (const value of names) if (random() < 0.6) rows.push({ link_id, dimension, value, day: utcDay(first + d * DAY), count: 1 + Math.floor(random() * 50) });
      }
    }
  }
  return rows;
}

/** What the write side keeps: per span length, the sum of the daily rows of each span. */
type SpanRow = { link_id: string; dimension: string; span: number; start_day: string; value: string; count: number };

function spanRows(daily: DailyRow[]): SpanRow[] {
  const sums = new Map<string, SpanRow>();
  for (const r of daily.filter((r) => SPAN_DIMENSIONS.includes(r.dimension))) {
    for (const span of SPAN_LENGTHS) {
      const row = { link_id: r.link_id, dimension: r.dimension, span, start_day: spanStart(r.day, span), value: r.value, count: 0 };
      const key = JSON.stringify({ ...row, count: undefined });
      (sums.get(key) ?? sums.set(key, row).get(key)!).count += r.count;
    }
  }
  return [...sums.values()];
}

function expectedTotals(daily: DailyRow[], link: string, end: number, days: number): RollupRow[] {
  const from = utcDay(end - (days - 1) * DAY);
  const sums = new Map<string, RollupRow>();
  for (const r of daily) {
    if (r.link_id !== link || !SPAN_DIMENSIONS.includes(r.dimension) || r.day < from || r.day > utcDay(end)) continue;
    const key = `${r.dimension}|${r.value}`;
    (sums.get(key) ?? sums.set(key, { day: '', dimension: r.dimension as Dimension, value: r.value, count: 0 }).get(key)!).count += r.count;
  }
  return sorted([...sums.values()]);
}

const sorted = (rows: RollupRow[]) => [...rows].sort((a, b) => (a.dimension + a.value < b.dimension + b.value ? -1 : 1));
