import crypto from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { accountTotals, TRIAL_GROUP, trim, type Trimmed } from '../allocation.js';
import type { DayVisits, FlushBatch, FlushResult, GapReason, RecordingLimits, Shortfall, VisitStore } from '../ports.js';
import { analyticsDb, type AnalyticsDB } from './analytics-schema.js';
import type { Database, Dialect } from '../../platform/database/database.js';
import { DayEncoder } from './journal.js';
import { linkNumbers } from './link-numbers.js';
import { pace } from '../../platform/database/pace.js';
import { rollUp } from './rollup.js';
import { addGaps, reapSilentInstances } from './visit-gaps.js';
import { ensureMonths, grantAccount, grantAccounts, grantDay, lockDay, returnDay } from './visit-allowance.js';

type Tx = Transaction<AnalyticsDB>;

/** Journal rows per INSERT: every flush writes up to one per bucket (64). */
const JOURNAL_ROWS_PER_STATEMENT = 16;
/** Visits counted or placed between looks at the clock (pace.ts): 10 to 40 µs of work (journal.ts). */
const VISITS_PER_SLICE = 4096;

/** Accounts' month rows known to exist (rows are never deleted), remembered up to this many. */
const KNOWN_MONTHS_MAX = 100_000;

/** Recording storage: flushes with their allowance checks, heartbeats, and roll-ups. */
export class KyselyVisitStore implements VisitStore {
  private readonly db: Kysely<AnalyticsDB>;
  private readonly dialect: Dialect;
  /** "month|account" of month rows this store made sure of (ensureMonths). */
  private readonly knownMonths = new Set<string>();

  constructor(database: Database) {
    this.db = analyticsDb(database.db);
    this.dialect = database.dialect;
  }

  async flush(batch: FlushBatch): Promise<FlushResult> {
    // Encoded and counted per account before the transaction, as if every visit were granted: on SQLite
    // every other query waits while a transaction runs. A day that an allowance cuts short is encoded
    // again inside.
    const prepared: { nums: Uint32Array; encoded: Map<number, Buffer>; totals: [string, number][] }[] = [];
    for (const day of batch.days) {
      const nums = await linkNumbers(this.db, day.table);
      prepared.push({ nums, encoded: await encodeInSlices(day, null, nums), totals: accountTotals(day) });
    }
    await this.ensureMonths(batch.days.map((day, d) => [day.day.slice(0, 7), prepared[d]!.totals]));
    return this.db.transaction().execute(async (tx) => {
      // Every day row of the batch is locked first, in ascending order (see grant).
      for (const day of batch.days) await lockDay(tx, day.day);
      let recorded = 0;
      let total = 0;
      const shortfalls: Shortfall[] = [];
      for (const [d, day] of batch.days.entries()) {
        const { keep, kept, refused, reasons } = await this.grant(tx, day, prepared[d]!.totals, batch.limits);
        total += day.count;
        recorded += kept;
        for (const [linkId, r] of refused) shortfalls.push({ linkId, reason: reasons.get(r.account)!, count: r.count, from: day.from, to: batch.now });
        await this.writeJournal(tx, keep === null ? prepared[d]!.encoded : await encodeInSlices(day, keep, prepared[d]!.nums), batch.now);
      }
      await addGaps(tx, this.dialect, [...shortfalls, ...batch.dropped]);
      await beat(tx, batch.instanceId, batch.startedAt, batch.now);
      return { recorded, refused: total - recorded };
    });
  }

  /**
   * The service ceiling of the day is taken first, then each account (ascending id) takes its share
   * from its free visits and packs. All flushes lock in one order (days, then accounts, then packs, then
   * gaps, each sorted): without it, a batch spanning midnight would lock an account row before the
   * second day's row while a one-day batch locks them the other way round, and PostgreSQL would abort
   * one as a deadlock.
   */
  private async grant(tx: Tx, day: DayVisits, totals: [string, number][], limits: RecordingLimits): Promise<Trimmed & { reasons: Map<string, GapReason> }> {
    const month = day.day.slice(0, 7);
    let dayLeft = await grantDay(tx, day.day, day.count, limits.trackingDailyLimit);
    // The usual flush: the ceiling does not bind, every account is offered all its visits, and one
    // statement serves them all (visit-allowance.ts). Otherwise each in turn takes what is left.
    const all =
      dayLeft === day.count ? await grantAccounts(tx, this.dialect, month, totals.filter(([account]) => account !== TRIAL_GROUP), limits.freeVisitsPerMonth) : undefined;
    const granted = new Map<string, number>();
    const reasons = new Map<string, GapReason>();
    for (const [account, own] of totals) {
      // SQLite statements run synchronously: yields keep a busy second's accounts from being one long
      // task (on the recording thread, or on the event loop with an in-memory database).
      if (all === undefined) await pace();
      const offer = Math.min(own, dayLeft);
      // Trial links belong to no account: only the service ceiling bounds them.
      const got =
        account === TRIAL_GROUP ? offer : all !== undefined ? all.get(account)! : await grantAccount(tx, this.dialect, account, month, offer, limits.freeVisitsPerMonth);
      dayLeft -= got;
      granted.set(account, got);
      reasons.set(account, got < offer ? 'allowance_used_up' : 'daily_ceiling_reached');
    }
    await returnDay(tx, day.day, dayLeft);
    return { ...trim(day, granted, totals), reasons };
  }

  /** Creates the month rows that accounts of the batch lack, outside the transaction (visit-allowance.ts). */
  private async ensureMonths(days: [month: string, totals: [string, number][]][]): Promise<void> {
    for (const [month, totals] of days) {
      const missing = totals.map(([account]) => account).filter((account) => account !== TRIAL_GROUP && !this.knownMonths.has(`${month}|${account}`));
      if (missing.length === 0) continue;
      await ensureMonths(this.db, this.dialect, month, missing);
      if (this.knownMonths.size + missing.length > KNOWN_MONTHS_MAX) this.knownMonths.clear();
      for (const account of missing) this.knownMonths.add(`${month}|${account}`);
    }
  }

  /** One row per bucket, in bucket order; a few statements per flush, whatever the number of visits. */
  private async writeJournal(tx: Tx, batches: Map<number, Buffer>, now: number): Promise<void> {
    const rows = [...batches]
      .sort(([a], [b]) => a - b)
      .map(([bucket, data]) => ({ id: crypto.randomUUID(), bucket, created_at: now, entries: '', data }));
    for (let i = 0; i < rows.length; i += JOURNAL_ROWS_PER_STATEMENT) {
      await tx.insertInto('visit_journal').values(rows.slice(i, i + JOURNAL_ROWS_PER_STATEMENT)).execute();
    }
  }

  rollUp(now: number): Promise<number> {
    return rollUp(this.db, this.dialect, now);
  }

  async beat(instanceId: string, startedAt: number, now: number): Promise<void> {
    await beat(this.db, instanceId, startedAt, now);
  }

  reapSilent(staleBefore: number, now: number, self: string): Promise<number> {
    return this.db.transaction().execute((tx) => reapSilentInstances(tx, staleBefore, now, self));
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

/**
 * encodeDay (journal.ts) in slices, paced (pace.ts): on the event loop (where recording ran before it
 * had a thread, and still runs with an in-memory database) one synchronous stretch over a busy
 * second's visits held every redirect behind it for about 20 ms; on the recording thread a stretch is
 * a pause of every redirect sharing its core.
 */
async function encodeInSlices(day: DayVisits, keep: Uint8Array | null, nums: Uint32Array): Promise<Map<number, Buffer>> {
  const encoder = new DayEncoder(day, keep, nums);
  const inSlices = async (step: (from: number, to: number) => void) => {
    for (let from = 0; from < day.count; from += VISITS_PER_SLICE) {
      step(from, Math.min(day.count, from + VISITS_PER_SLICE));
      await pace();
    }
  };
  await inSlices((from, to) => encoder.add(from, to));
  await inSlices((from, to) => encoder.place(from, to));
  const out = new Map<number, Buffer>();
  for (const [bucket, data] of encoder.batches()) {
    out.set(bucket, data);
    await pace();
  }
  return out;
}
