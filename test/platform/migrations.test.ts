import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Migrator, sql, type Kysely } from 'kysely';
import { analyticsDb } from '../../src/analytics/store/analytics-schema.js';
import { addCounts } from '../../src/analytics/store/rollups.js';
import { KyselyStatsStore } from '../../src/analytics/store/stats-store.js';
import { openDatabase, type Database } from '../../src/platform/database/database.js';
import { migrateToLatest, migrationProvider } from '../../src/platform/database/migrations.js';
import { eachDatabase, freshDatabaseUrl } from '../helpers/databases.js';

eachDatabase('migrations from the one before', (kind) => {
  let database: Database;
  let drop: () => Promise<void>;
  before(async () => {
    const fresh = await freshDatabaseUrl(kind);
    drop = fresh.drop;
    database = await openDatabase(fresh.url, { migrate: false });
  });
  after(async () => {
    await database.close();
    await drop();
  });

  test("0014 keeps a day's rollup row under the writer '' and reads it with the rows of later writers; 0017 rewrites counts as arrays", async () => {
    const { error } = await new Migrator({ db: database.db, provider: migrationProvider }).migrateTo('0013_sessions');
    assert.equal(error, undefined);
    await sql`insert into visit_rollups (link_id, day, s, q, counts) values ('link-1', '2026-11-20', 2, 1, '{"source":{"s":2,"q":1},"country":{"DE":3}}')`.execute(
      database.db,
    );
    // More rows than 0017 converts per query, one with a value named __proto__.
    const days = Array.from({ length: 1200 }, (_, i) => new Date(Date.UTC(2023, 0, 1 + i)).toISOString().slice(0, 10));
    for (let i = 0; i < days.length; i += 200)
      await (database.db as Kysely<any>) // typed for the latest schema: before 0014 the table has no writer
        .insertInto('visit_rollups')
        .values(days.slice(i, i + 200).map((day) => ({ link_id: 'link-2', day, s: 1, q: 0, counts: '{"source":{"s":1},"referrer":{"__proto__":1}}' })))
        .execute();
    await migrateToLatest(database.db);
    const converted = await analyticsDb(database.db).selectFrom('visit_rollups').select(['link_id', 'counts']).orderBy('link_id').orderBy('day').execute();
    assert.equal(converted[0]!.counts, '{"source":["s",2,"q",1],"country":["DE",3]}');
    assert.deepEqual(new Set(converted.slice(1).map((r) => r.counts)), new Set(['{"source":["s",1],"referrer":["__proto__",1]}']));
    assert.equal(converted.length, 1 + days.length);
    await sql`insert into visit_rollups (link_id, day, writer, s, q, counts) values ('link-1', '2026-11-20', 'w', 1, 0, '{"source":["s",1],"country":["DE",1]}')`.execute(
      database.db,
    );
    const [day, ...more] = await new KyselyStatsStore(database, 1000).days('link-1', '2026-11-01', '2026-11-30', true);
    assert.equal(more.length, 0);
    assert.deepEqual([day!.s, day!.q, Object.fromEntries(addCounts({}, day!.counts).country!)], [3, 1, { DE: 4 }]);
    if (kind === 'postgres') {
      const { rows } = await sql<{ options: string[] }>`select reloptions as options from pg_class where relname = 'links'`.execute(database.db);
      assert.deepEqual(rows[0]!.options, ['fillfactor=80'], '0015 leaves room on the pages of links for HOT updates');
      const rollups = await sql<{ options: string[] }>`select reloptions as options from pg_class where relname = 'visit_rollups'`.execute(database.db);
      assert.deepEqual(rollups.rows[0]!.options, ['fillfactor=50'], '0016 leaves room on the pages of visit_rollups for HOT updates');
    }
  });
});
