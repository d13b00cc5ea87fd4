import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Migrator, sql } from 'kysely';
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

  test("0014 keeps a day's rollup row under the writer '' and reads it with the rows of later writers", async () => {
    const { error } = await new Migrator({ db: database.db, provider: migrationProvider }).migrateTo('0013_sessions');
    assert.equal(error, undefined);
    await sql`insert into visit_rollups (link_id, day, s, q, counts) values ('link-1', '2026-11-20', 2, 1, '{"source":{"s":2,"q":1},"country":{"DE":3}}')`.execute(
      database.db,
    );
    await migrateToLatest(database.db);
    await sql`insert into visit_rollups (link_id, day, writer, s, q, counts) values ('link-1', '2026-11-20', 'w', 1, 0, '{"source":{"s":1},"country":{"DE":1}}')`.execute(
      database.db,
    );
    const [day, ...more] = await new KyselyStatsStore(database, 1000).days('link-1', '2026-11-01', '2026-11-30', true);
    assert.equal(more.length, 0);
    assert.deepEqual([day!.s, day!.q, { ...day!.counts.country }], [3, 1, { DE: 4 }]);
    if (kind === 'postgres') {
      const { rows } = await sql<{ options: string[] }>`select reloptions as options from pg_class where relname = 'links'`.execute(database.db);
      assert.deepEqual(rows[0]!.options, ['fillfactor=80'], '0015 leaves room on the pages of links for HOT updates');
      const rollups = await sql<{ options: string[] }>`select reloptions as options from pg_class where relname = 'visit_rollups'`.execute(database.db);
      assert.deepEqual(rollups.rows[0]!.options, ['fillfactor=50'], '0016 leaves room on the pages of visit_rollups for HOT updates');
    }
  });
});
