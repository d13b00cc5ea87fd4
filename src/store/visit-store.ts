import crypto from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { allocate, groupSorted, sum } from '../domain/analytics/allocation.js';
import type { FlushBatch, FlushResult, Shortfall, VisitCount, VisitStore } from '../domain/analytics/ports.js';
import { analyticsDb, type AnalyticsDB } from './analytics-schema.js';
import type { Database, Dialect } from './database.js';
import { bucketOf, encodeJournal } from './journal.js';
import { breathe, rollUp } from './rollup.js';
import { grantAccount, grantDay, lockDay, returnDay } from './visit-allowance.js';

type Tx = Transaction<AnalyticsDB>;

/** Counts per journal row: small enough that encoding one never holds the event loop for long. */
const JOURNAL_CHUNK = 4000;
/**
 * Trial links have no account; grouped under a key that sorts after every account id (UUIDs are
 * hex), they take what the daily ceiling has left after accounts, not before them.
 */
const TRIAL_GROUP = '~trial';
/** A refusal this close after the previous one of the same link and reason extends that gap. */
const GAP_MERGE_MS = 3_600_000;

/** Recording storage: flushes with their allowance checks, heartbeats, and roll-ups. */
export class KyselyVisitStore implements VisitStore {
  private readonly db: Kysely<AnalyticsDB>;
  private readonly dialect: Dialect;

  constructor(database: Database) {
    this.db = analyticsDb(database.db);
    this.dialect = database.dialect;
  }

  flush(batch: FlushBatch): Promise<FlushResult> {
    return this.db.transaction().execute(async (tx) => {
      const { kept, shortfalls } = await this.grant(tx, batch);
      for (const [bucket, counts] of groupSorted(kept, (c) => String(bucketOf(c.linkId)))) {
        for (let i = 0; i < counts.length; i += JOURNAL_CHUNK) {
          const entries = encodeJournal(counts.slice(i, i + JOURNAL_CHUNK));
          await tx.insertInto('visit_journal').values({ id: crypto.randomUUID(), bucket: Number(bucket), created_at: batch.now, entries }).execute();
          await breathe();
        }
      }
      const gaps = [...shortfalls, ...batch.dropped].sort((a, b) => (`${a.linkId}|${a.reason}` < `${b.linkId}|${b.reason}` ? -1 : 1));
      for (const gap of gaps) await addGap(tx, gap);
      await beat(tx, batch.instanceId, batch.startedAt, batch.now);
      const recorded = sum(kept);
      return { recorded, refused: sum(batch.counts) - recorded };
    });
  }

  /**
   * Per UTC day (ascending), the service ceiling is taken first, then each account (ascending id) takes
   * its share from its free visits and packs. Every day row of the batch is locked first, in ascending
   * order, so all flushes lock in one order (days, then accounts, then packs, then gaps, each sorted):
   * without it, a batch spanning midnight would lock an account row before the second day's row while
   * a one-day batch locks them the other way round, and PostgreSQL would abort one as a deadlock.
   */
  private async grant(tx: Tx, batch: FlushBatch): Promise<{ kept: VisitCount[]; shortfalls: Shortfall[] }> {
    const kept: VisitCount[] = [];
    const shortfalls: Shortfall[] = [];
    const days = groupSorted(batch.counts, (c) => c.day);
    for (const [day] of days) await lockDay(tx, day);
    for (const [day, counts] of days) {
      let dayLeft = await grantDay(tx, day, sum(counts), batch.limits.trackingDailyLimit);
      for (const [account, own] of groupSorted(counts, (c) => c.accountId ?? TRIAL_GROUP)) {
        const offer = Math.min(sum(own), dayLeft);
        // Trial links belong to no account: only the service ceiling bounds them.
        const got = account === TRIAL_GROUP ? offer : await grantAccount(tx, this.dialect, account, day.slice(0, 7), offer, batch.limits.freeVisitsPerMonth);
        dayLeft -= got;
        const split = allocate(own, got);
        for (const c of split.kept) kept.push(c);
        const reason = got < offer ? 'allowance_used_up' : 'daily_ceiling_reached';
        for (const [linkId, count] of split.refused) shortfalls.push({ linkId, reason, count, from: batch.from, to: batch.now });
        // SQLite statements run synchronously: without a yield, a busy second's accounts would all be
        // granted in one macrotask and hold back the redirects waiting behind it.
        await breathe();
      }
      await returnDay(tx, day, dayLeft);
    }
    return { kept, shortfalls };
  }

  rollUp(now: number): Promise<number> {
    return rollUp(this.db, now);
  }

  async beat(instanceId: string, startedAt: number, now: number): Promise<void> {
    await beat(this.db, instanceId, startedAt, now);
  }

  async reapSilent(staleBefore: number, now: number, self: string): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      // DELETE … RETURNING claims each dead instance once, even when several instances reap together.
      const dead = await tx
        .deleteFrom('recorder_instances')
        .where('beat_at', '<', staleBefore)
        .where('id', '<>', self)
        .returning('flushed_to')
        .execute();
      for (const d of dead) {
        await tx
          .insertInto('visit_gaps')
          .values({ id: crypto.randomUUID(), link_id: null, reason: 'recording_unavailable', from_ms: d.flushed_to, to_ms: now })
          .execute();
      }
      return dead.length;
    });
  }

  async leave(instanceId: string): Promise<void> {
    await this.db.deleteFrom('recorder_instances').where('id', '=', instanceId).execute();
  }
}

async function beat(db: Kysely<AnalyticsDB>, id: string, startedAt: number, now: number): Promise<void> {
  await db
    .insertInto('recorder_instances')
    .values({ id, started_at: startedAt, beat_at: now, flushed_to: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ beat_at: now, flushed_to: now }))
    .execute();
}

/** Extends this link's latest gap of the same reason when it ended recently, else starts a new one. */
async function addGap(tx: Tx, gap: Shortfall): Promise<void> {
  const extended = await tx
    .updateTable('visit_gaps')
    .set({
      from_ms: sql<number>`case when from_ms > ${gap.from} then ${gap.from} else from_ms end`,
      to_ms: sql<number>`case when to_ms < ${gap.to} then ${gap.to} else to_ms end`,
    })
    .where('link_id', '=', gap.linkId)
    .where('reason', '=', gap.reason)
    .where('to_ms', '>=', gap.from - GAP_MERGE_MS)
    .executeTakeFirst();
  if (Number(extended.numUpdatedRows) > 0) return;
  await tx
    .insertInto('visit_gaps')
    .values({ id: crypto.randomUUID(), link_id: gap.linkId, reason: gap.reason, from_ms: gap.from, to_ms: gap.to })
    .execute();
}
