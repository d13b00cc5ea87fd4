import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { postgresSkip } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { until } from '../helpers/load.js';
import { linkWithKey, recordingStore, stats, storedCounts, visit } from '../helpers/analytics.js';
import type { FlushBatch, Visit } from '../../src/analytics/ports.js';

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

  /** How many of the database's connections wait for a lock. */
  const waiting = async () =>
    Number(
      (
        await sql<{ n: string }>`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(
          h.database.db,
        )
      ).rows[0]!.n,
    );
  /** Whether the connection that waits for a lock has written to visit_tallies (holds a lock on it). */
  const waiterWroteTallies = async () =>
    Number(
      (
        await sql<{ n: string }>`select count(*) as n from pg_locks l join pg_class c on c.oid = l.relation
          where c.relname = 'visit_tallies' and l.pid in (select pid from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database())`.execute(
          h.database.db,
        )
      ).rows[0]!.n,
    ) > 0;
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
  /** A batch of an instance's visits, for a store flushed by hand: which visits each holds, and when, is the test's to choose. */
  const batch = (instanceId: string, visits: Visit[], trackingDailyLimit = 100_000): FlushBatch => ({
    instanceId,
    startedAt: now,
    now,
    visits,
    dropped: [],
    limits: { freeVisitsPerMonth: 100, trackingDailyLimit, trackingDailyBotLimit: 100 },
  });

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
    // Two instances' stores, flushed by hand.
    const [x, y] = [recordingStore(h.database), recordingStore(h.database)];
    // The month's rows exist: only their locks are at stake.
    await x.flush(batch('x', [visitOf(a, '2026-11-09T12:00:00Z'), visitOf(b, '2026-11-09T12:00:00Z')]));
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

  test("with room for its visits, a flush writes its counts before it waits for the day's row", { timeout: 30_000 }, async () => {
    const link = await linkWithKey(h);
    const x = recordingStore(h.database);
    const release = await holdDayRow();
    let flushing: Promise<Visit[]> | undefined;
    try {
      flushing = x.flush(batch('early', [visitOf(link, '2026-11-15T08:00:00Z'), visitOf(link, '2026-11-15T08:10:00Z')]));
      await until("the flush waits for the day's row", async () => (await waiting()) === 1, 10_000);
      // The waiting flush has written its tallies (a lock on visit_tallies), so another instance's flush waits only for its grants.
      assert.ok(await waiterWroteTallies(), 'the waiting flush holds no lock on visit_tallies: it has not written its counts yet');
    } finally {
      await release();
    }
    assert.equal((await flushing)?.length, 2);
    const counted = await storedCounts(h.database, link.id, '2026-11-15', '2026-11-15');
    assert.equal(
      counted.filter((row) => row.dimension === 'country').reduce((n, row) => n + row.n[0]!, 0),
      2,
    );
  });

  test('a flush whose room another takes while it waits is made again after its grants, and records what the ceiling leaves', { timeout: 30_000 }, async () => {
    const link = await linkWithKey(h);
    const x = recordingStore(h.database);
    const visits = Array.from({ length: 6 }, (_, i) => visitOf(link, `2026-11-16T08:0${i}:00Z`));
    // The day's ceiling of 10 has room for the 6 visits as x first reads it; another flush then takes 7 of it.
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const other = h.database.db.transaction().execute(async (tx) => {
      await sql`insert into visit_days (day, recorded, bots, last_grant) values ('2026-11-16', 0, 0, 0) on conflict (day) do nothing`.execute(tx);
      await sql`select day from visit_days where day = '2026-11-16' for update`.execute(tx);
      locked();
      await new Promise<void>((resolve) => (release = resolve));
      await sql`update visit_days set recorded = recorded + 7 where day = '2026-11-16'`.execute(tx);
    });
    await isLocked;
    let flushing: Promise<Visit[]> | undefined;
    try {
      flushing = x.flush(batch('taken', visits, 10));
      await until("the flush waits for the day's row", async () => (await waiting()) === 1, 10_000);
    } finally {
      release();
      await other;
    }
    assert.equal((await flushing)?.length, 3);
    const counted = await storedCounts(h.database, link.id, '2026-11-16', '2026-11-16');
    assert.equal(
      counted.filter((row) => row.dimension === 'country').reduce((n, row) => n + row.n[0]!, 0),
      3,
      'only the granted visits are counted, once',
    );
    const day = await h.database.db.selectFrom('visit_days').select('recorded').where('day', '=', '2026-11-16').executeTakeFirstOrThrow();
    assert.equal(Number(day.recorded), 10);
    const gaps = await h.database.db.selectFrom('visit_gaps').select('reason').where('link_id', '=', link.id).execute();
    assert.deepEqual(
      gaps.map((g) => g.reason),
      ['daily_ceiling_reached'],
    );
    const { visits: total } = await h.database.db.selectFrom('links').select('visits').where('id', '=', link.id).executeTakeFirstOrThrow();
    assert.equal(Number(total), 3);
    // The next flush of the same instance goes on from what its rows hold.
    assert.equal((await x.flush(batch('taken', [visitOf(link, '2026-11-17T08:00:00Z')], 10))).length, 1);
    assert.equal(
      (await storedCounts(h.database, link.id)).filter((row) => row.dimension === 'country').reduce((n, row) => n + row.n[0]!, 0),
      4,
    );
  });

  test('a flush of visits that were only dropped writes their gap', async () => {
    const link = await linkWithKey(h);
    const x = recordingStore(h.database);
    const dropped = { linkId: link.id, reason: 'recording_unavailable' as const, count: 2, from: now - 1000, to: now };
    assert.deepEqual(await x.flush({ ...batch('dropped', []), dropped: [dropped] }), []);
    const gaps = await h.database.db.selectFrom('visit_gaps').select('reason').where('link_id', '=', link.id).execute();
    assert.deepEqual(
      gaps.map((g) => g.reason),
      ['recording_unavailable'],
    );
  });

  test(
    'an account past its allowance does not hold the others back: their counts are written before the locks, its visits refused',
    { timeout: 30_000 },
    async () => {
      const [over, within] = [await linkWithKey(h), await linkWithKey(h)];
      // The month's free visits (100) of one account are used up, and it has no pack.
      await sql`insert into visit_months (account_id, month, recorded, free_used, last_grant) values (${over.accountId}, '2026-11', 100, 100, 0)`.execute(
        h.database.db,
      );
      const x = recordingStore(h.database);
      const release = await holdDayRow();
      let flushing: Promise<Visit[]> | undefined;
      try {
        flushing = x.flush(
          batch('partly', [visitOf(over, '2026-11-15T08:00:00Z'), visitOf(within, '2026-11-15T08:00:00Z'), visitOf(within, '2026-11-15T08:05:00Z')]),
        );
        await until("the flush waits for the day's row", async () => (await waiting()) === 1, 10_000);
        assert.ok(await waiterWroteTallies(), 'the counts of the account with room wait for the other account');
      } finally {
        await release();
      }
      assert.deepEqual(
        (await flushing)?.map((visit) => visit.link.id),
        [within.id, within.id],
      );
      const countedOf = async (link: { id: string }) =>
        (await storedCounts(h.database, link.id, '2026-11-15', '2026-11-15')).filter((row) => row.dimension === 'country').reduce((n, row) => n + row.n[0]!, 0);
      assert.deepEqual([await countedOf(over), await countedOf(within)], [0, 2]);
      const gaps = await h.database.db.selectFrom('visit_gaps').select(['link_id', 'reason']).where('link_id', 'in', [over.id, within.id]).execute();
      assert.deepEqual(gaps, [{ link_id: over.id, reason: 'allowance_used_up' }]);
    },
  );
});
