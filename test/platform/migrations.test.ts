import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Migrator, sql, type Kysely } from 'kysely';
import { KyselyStatsStore } from '../../src/analytics/store/stats-store.js';
import { add, emptySketch, encode } from '../../src/analytics/visitors.js';
import { storedCounts } from '../helpers/analytics.js';
import { openDatabase, type Database } from '../../src/platform/database/database.js';
import { migrateToLatest, migrationProvider } from '../../src/platform/database/migrations.js';
import { eachDatabase, freshDatabaseUrl, type DatabaseKind } from '../helpers/databases.js';

/** A database of the suite's own, opened before its tests with no migration run, dropped after them. */
function unmigrated(kind: DatabaseKind): { database: Database } {
  const fresh = {} as { database: Database; drop: () => Promise<void> };
  before(async () => {
    const url = await freshDatabaseUrl(kind);
    fresh.drop = url.drop;
    fresh.database = await openDatabase(url.url, { migrate: false });
  });
  after(async () => {
    await fresh.database.close();
    await fresh.drop();
  });
  return fresh;
}

eachDatabase('migrations from the one before', (kind) => {
  const fresh = unmigrated(kind);

  test("0020 adds the rollup rows of today's format, of every writer, into the counts without losing a visit", async () => {
    const { database } = fresh;
    const { error } = await new Migrator({ db: database.db, provider: migrationProvider }).migrateTo('0018_link_change_notices');
    assert.equal(error, undefined);
    const db = database.db as Kysely<any>; // typed for the latest schema: before 0020 the rollups exist
    const row = (day: string, writer: string, s: number, q: number, counts: object) => ({
      link_id: 'link-1',
      day,
      writer,
      s,
      q,
      counts: JSON.stringify(counts),
    });
    await db
      .insertInto('visit_rollups')
      .values([
        row('2026-11-20', '', 3, 1, {
          source: ['s', 3, 'q', 1],
          country: ['DE', 3, 'FR', 1],
          device: ['mobile', 3, 'bot', 1],
          referrer: ['__proto__', 4],
          bot: ['no', 3, 'yes', 1],
        }),
        row('2026-11-20', 'w', 2, 0, {
          source: ['s', 2],
          country: ['DE', 2],
          device: ['desktop', 2],
          browser: ['Chrome', 2],
          referrer: ['direct', 2],
          bot: ['no', 2],
        }),
        row('2026-11-21', 'w', 0, 5, { source: ['q', 5], country: ['unknown', 5], device: ['bot', 5], bot: ['yes', 5] }),
      ])
      .execute();
    // More rows than the migration converts per query.
    const days = Array.from({ length: 1200 }, (_, i) => new Date(Date.UTC(2023, 0, 1 + i)).toISOString().slice(0, 10));
    for (let i = 0; i < days.length; i += 200)
      await db
        .insertInto('visit_rollups')
        .values(days.slice(i, i + 200).map((day) => ({ ...row(day, 'x', 1, 0, { source: ['s', 1], country: ['DE', 1] }), link_id: 'link-2' })))
        .execute();
    await migrateToLatest(database.db);
    const counts = await storedCounts(database, 'link-1', '2026-11-01', '2026-11-30');
    const of = (day: string, dimension: string) =>
      Object.fromEntries(counts.filter((c) => c.day === day && c.dimension === dimension).map((c) => [c.value, c.n.reduce((a, b) => a + b, 0)]));
    assert.deepEqual(of('2026-11-20', 'time'), { '00:00': 6 }, 'every visit of the day, at midnight UTC');
    assert.deepEqual(of('2026-11-20', 'country'), { DE: 5, FR: 1 });
    assert.deepEqual(of('2026-11-20', 'device'), { mobile: 3, desktop: 2, bot: 1 });
    assert.deepEqual(of('2026-11-20', 'browser'), { Chrome: 2 });
    assert.deepEqual(of('2026-11-20', 'referrer'), { ['__proto__']: 4, direct: 2 });
    const time = (day: string) => counts.find((c) => c.day === day && c.dimension === 'time')!.n;
    assert.deepEqual(time('2026-11-20'), [4, 1, 1, 0], '/s/ and /q/ kept; the bot counted through /s/ first');
    assert.deepEqual(time('2026-11-21'), [0, 0, 0, 5]);
    const bot = counts.find((c) => c.day === '2026-11-21' && c.dimension === 'device')!;
    assert.deepEqual([bot.value, bot.n], ['bot', [0, 0, 0, 5]], 'the device class bot counts as bots');
    const many = (await storedCounts(database, 'link-2', '2023-01-01', '2026-12-31')).filter((c) => c.dimension === 'time');
    assert.equal(many.length, days.length);
    const tables = await sql<{ n: number }>`select count(*) as n from visit_tallies`.execute(database.db);
    assert.equal(Number(tables.rows[0]!.n), days.length + 2, 'one row per link and day');
    if (kind === 'postgres') {
      const { rows } = await sql<{ options: string[] }>`select reloptions as options from pg_class where relname = 'links'`.execute(database.db);
      assert.deepEqual(rows[0]!.options, ['fillfactor=80'], '0015 leaves room on the pages of links for HOT updates');
    }
  });
});

eachDatabase('migrations from the one before: tallies', (kind) => {
  const fresh = unmigrated(kind);

  test("0080 makes today's counts and sketches one row per link and day, keeping every count and every sketch", async () => {
    const { database } = fresh;
    const { error } = await new Migrator({ db: database.db, provider: migrationProvider }).migrateTo('0060_qr_designs');
    assert.equal(error, undefined);
    const db = database.db as Kysely<any>; // typed for the latest schema: before 0080 the counts exist
    const count = (link_id: string, day: string, dimension: string, value: string, n: number[]) => {
      const [s, q, s_bot, q_bot] = n;
      return { link_id, day, dimension, value, s, q, s_bot, q_bot };
    };
    await db
      .insertInto('visit_counts')
      .values([
        count('link-1', '2026-11-20', 'time', '08:15', [3, 1, 0, 2]),
        count('link-1', '2026-11-20', 'time', '19:45', [1, 0, 0, 0]),
        count('link-1', '2026-11-20', 'country', 'DE', [4, 1, 0, 2]),
        count('link-1', '2026-11-20', 'referrer', '__proto__', [4, 1, 0, 2]),
        count('link-1', '2026-11-21', 'time', '00:00', [0, 5, 0, 0]),
      ])
      .execute();
    // More rows than the migration reads per query, a link's day split across two of them.
    const many = Array.from({ length: 6000 }, (_, i) =>
      count('link-2', `2026-01-${String(1 + Math.floor(i / 1100)).padStart(2, '0')}`, 'referrer', `r${i}`, [1, 0, 0, 0]),
    );
    for (let i = 0; i < many.length; i += 500)
      await db
        .insertInto('visit_counts')
        .values(many.slice(i, i + 500))
        .execute();
    const sketch = (code: number) => {
      const s = emptySketch();
      add(s, [code]);
      return encode(s);
    };
    await db
      .insertInto('visit_visitors')
      .values([
        { link_id: 'link-1', day: '2026-11-20', source: 's', bot: 0, sketch: sketch(1) },
        { link_id: 'link-1', day: '2026-11-20', source: 'q', bot: 1, sketch: sketch(2 ** 31) },
        { link_id: 'link-3', day: '2026-11-22', source: 'q', bot: 0, sketch: sketch(7) },
      ])
      .execute();
    await migrateToLatest(database.db);
    const rows = await storedCounts(database, 'link-1', '2026-11-01', '2026-11-30');
    assert.deepEqual(rows.map((r) => [r.day, r.dimension, r.value, r.n]).sort(), [
      ['2026-11-20', 'country', 'DE', [4, 1, 0, 2]],
      ['2026-11-20', 'referrer', '__proto__', [4, 1, 0, 2]],
      ['2026-11-20', 'time', '08:15', [3, 1, 0, 2]],
      ['2026-11-20', 'time', '19:45', [1, 0, 0, 0]],
      ['2026-11-21', 'time', '00:00', [0, 5, 0, 0]],
    ]);
    const referrers = await storedCounts(database, 'link-2', '2026-01-01', '2026-01-31');
    assert.equal(referrers.length, many.length, 'every count of the six days, across the reads');
    // Each sketch in its column (a bit each: /s/, /q/, bots through /s/, bots through /q/), and of a day without counts too.
    const store = new KyselyStatsStore(database);
    const visitorsOf = async (link: string, day: string) => {
      const [read] = (await store.linkDays([link], day, day)).get(link)!;
      return [1, 2, 4, 8].map((mask) => read!.visitors(mask));
    };
    assert.deepEqual(await visitorsOf('link-1', '2026-11-20'), [1, 0, 0, 1]);
    assert.deepEqual(await visitorsOf('link-3', '2026-11-22'), [0, 1, 0, 0]);
    const versions = await sql<{ version: number }>`select distinct version from visit_tallies`.execute(database.db);
    assert.deepEqual(
      versions.rows.map((r) => Number(r.version)),
      [1],
      '0081: every row at its first version',
    );
    const { rows: tables } = await sql<{ name: string }>`select 1 as name from visit_tallies`.execute(database.db);
    assert.equal(tables.length, 2 + 6 + 1);
  });
});
