import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { postgresSkip } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';
import { linkWithKey, stats, visit } from '../helpers/analytics.js';
import type { FlushBatch, Visit } from '../../src/analytics/ports.js';
import { KyselyRecordingStore } from '../../src/analytics/store/recording-store.js';

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

  test('flushes of different days of one month lock their accounts in one order, and do not deadlock', { timeout: 30_000 }, async () => {
    const links = [await linkWithKey(h), await linkWithKey(h)].sort((l, m) => (l.accountId < m.accountId ? -1 : 1));
    const [a, b] = [links[0]!, links[1]!];
    // Two instances' stores, flushed by hand: which visits each holds, and when, is the test's to choose.
    const [x, y] = [new KyselyRecordingStore(h.database), new KyselyRecordingStore(h.database)];
    const now = Date.parse('2026-11-12T13:00:00Z');
    const visitOf = (link: { id: string; accountId: string }, iso: string): Visit => ({
      link: { id: link.id, accountId: link.accountId },
      time: Date.parse(iso),
      source: 's',
      agent: { device: 'mobile', browser: 'Mobile Safari', os: 'iOS', bot: false },
      country: 'DE',
      referrer: 'direct',
      visitor: 1,
    });
    const batch = (instanceId: string, visits: Visit[]): FlushBatch => ({
      instanceId,
      startedAt: now,
      now,
      visits,
      dropped: [],
      limits: { freeVisitsPerMonth: 100, trackingDailyLimit: 100_000, trackingDailyBotLimit: 100 },
    });
    // The month's rows exist: only their locks are at stake.
    await x.flush(batch('x', [visitOf(a, '2026-11-09T12:00:00Z'), visitOf(b, '2026-11-09T12:00:00Z')]));
    const waiting = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(
            h.database.db,
          )
        ).rows[0]!.n,
      );
    // Another connection holds a's month row; y (12 November: a, then b) waits for it first, then x
    // (10 November: b; 11 November: a). Locking each day's accounts in turn, x would hold b while it
    // waits for a, and y, given a, would wait for b: a deadlock, one of the flushes failed.
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = h.database.db.transaction().execute(async (tx) => {
      await sql`select account_id from visit_months where account_id = ${a.accountId} and month = '2026-11' for update`.execute(tx);
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await isLocked;
    const flushes: Promise<Visit[]>[] = [];
    try {
      flushes.push(y.flush(batch('y', [visitOf(a, '2026-11-12T08:00:00Z'), visitOf(b, '2026-11-12T08:00:00Z')])));
      await until('y waits for a', async () => (await waiting()) === 1, 10_000);
      flushes.push(x.flush(batch('x', [visitOf(b, '2026-11-10T08:00:00Z'), visitOf(a, '2026-11-11T08:00:00Z')])));
      await until('x waits too', async () => (await waiting()) === 2, 10_000);
    } finally {
      release();
      await holding;
    }
    const settled = await Promise.allSettled(flushes);
    assert.deepEqual(
      settled.map((s) => (s.status === 'fulfilled' ? s.value.length : String(s.reason))),
      [2, 2],
    );
    const recorded = await sql<{
      account_id: string;
      recorded: string;
    }>`select account_id, recorded from visit_months where month = '2026-11' and account_id in (${a.accountId}, ${b.accountId}) order by account_id`.execute(
      h.database.db,
    );
    assert.deepEqual(
      recorded.rows.map((r) => Number(r.recorded)),
      [3, 3],
    );
  });
});
