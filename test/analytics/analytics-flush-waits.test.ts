import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { postgresSkip } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';
import { linkWithKey, stats, visit } from '../helpers/analytics.js';

/**
 * PostgreSQL only: there another connection can hold the day's row, as another instance's flush does,
 * while this instance goes on. (On SQLite one connection serves every write of the process.)
 */
describe('a flush waiting for another instance (postgres)', { skip: postgresSkip }, () => {
  let h: Harness;
  before(async () => {
    h = await Harness.start('postgres', { ANALYTICS_FLUSH_INTERVAL_MS: '20' });
  });
  after(async () => h.close());

  /** Locks the day's row from another connection, as another instance's flush does; resolves to its release. */
  async function holdDayRow(): Promise<() => Promise<void>> {
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = h.database.db.transaction().execute(async (tx) => {
      await sql`insert into visit_days (day, recorded, last_grant) values ('2026-11-15', 0, 0) on conflict (day) do nothing`.execute(tx);
      await sql`select day from visit_days where day = '2026-11-15' for update`.execute(tx);
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await isLocked;
    return async () => {
      release();
      await holding;
    };
  }

  test('redirects are answered while the flush waits, and once it may, every visit is recorded once', { timeout: 30_000 }, async () => {
    const link = await linkWithKey(h);
    const waiting = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(
            h.database.db,
          )
        ).rows[0]!.n,
      );
    const release = await holdDayRow();
    try {
      await visit(h, link.slug, 1);
      await until('a flush waits for the held row', async () => (await waiting()) > 0, 10_000);
      // Answered at once, counted in memory while the flush waits.
      await visit(h, link.slug, 3);
    } finally {
      await release();
    }
    assert.equal((await stats(h, link.id, link.key)).total, 4);
  });
});
