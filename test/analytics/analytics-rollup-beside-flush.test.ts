import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { postgresSkip } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { linkWithKey, stats, visit } from '../helpers/analytics.js';

/**
 * PostgreSQL only: there a roll-up pass can be held on its lock row from another connection while the
 * instance goes on. (On SQLite one connection serves every write, so any held transaction holds the
 * flushes too, by design.)
 */
describe('a roll-up beside the flushes (postgres)', { skip: postgresSkip }, () => {
  let h: Harness;
  before(async () => {
    h = await Harness.start('postgres', { ANALYTICS_FLUSH_INTERVAL_MS: '20', ANALYTICS_ROLLUP_INTERVAL_MS: '20' });
  });
  after(async () => h.close());

  test('visits are flushed at every tick while a roll-up waits, and the roll-up folds them once it may', { timeout: 30_000 }, async () => {
    const link = await linkWithKey(h);
    const journalRows = async () => Number((await sql<{ n: string }>`select count(*) as n from visit_journal`.execute(h.database.db)).rows[0]!.n);
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = h.database.db.transaction().execute(async (tx) => {
      await sql`select value from analytics_state where name = 'roll_up_lock' for update`.execute(tx);
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await isLocked;
    const until = async (what: string, done: () => Promise<boolean>) => {
      for (let i = 0; i < 500 && !(await done()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(await done(), what);
    };
    try {
      // One visit is flushed; the next tick's roll-up finds it in the journal and waits for the lock.
      await visit(h, link.slug, 1);
      await until('the first visit was flushed', async () => (await journalRows()) > 0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = await journalRows();
      await visit(h, link.slug, 3);
      await until('the next visits were flushed while the roll-up waited', async () => (await journalRows()) > before);
    } finally {
      release();
      await holding;
    }
    assert.equal((await stats(h, link.id, link.key)).total, 4);
  });
});
