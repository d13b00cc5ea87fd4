import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, Dialect } from '../../platform/database/database.js';
import { DAY_MS, utcDay } from '../../platform/time.js';
import type { FlushBatch, GapReason, Recorded, RecordingLimits, RecordingStore, Shortfall } from '../ports.js';
import { breathe, SLICE, TRIAL_GROUP, type DayVisits } from '../visits.js';
import { analyticsDb, type AnalyticsDB } from './analytics-schema.js';
import { addLinkVisits, bumpPastVersion, RollupWriter, writeRollups } from './rollups.js';
import { addGaps, reapSilentInstances } from './visit-gaps.js';
import { ensureMonths, grantAccounts, grantDay, lockDay, returnDay } from './visit-allowance.js';

type Tx = Transaction<AnalyticsDB>;

/** Accounts and days remembered as short (KyselyRecordingStore.short), up to this many. */
const SHORT_MAX = 100_000;

/** An account expected to record all its visits was granted fewer (KyselyRecordingStore.transact). */
class EarlyShortfall extends Error {}

/** Recording storage: the flush transaction, heartbeats, and reaping of dead instances. */
export class KyselyRecordingStore implements RecordingStore {
  private readonly db: Kysely<AnalyticsDB>;
  private readonly dialect: Dialect;
  /** Each recording instance's rollup writer (one per recorder, whose flushes run one at a time). */
  private readonly writers = new Map<string, RollupWriter>();
  /** Accounts ("month|account") and days ("YYYY-MM-DD", the ceiling) whose last grant was short (expectedInFull). */
  private readonly short = new Set<string>();

  constructor(
    database: Database,
    private readonly writerMaxValues?: number,
  ) {
    this.db = analyticsDb(database.db);
    this.dialect = database.dialect;
  }

  /** One transaction: allowances, rollups, links' totals, gaps, and the heartbeat that says every visit before `now` is in. */
  async flush(batch: FlushBatch): Promise<Map<string, number>> {
    const totals = batch.days.map((day) => day.accountTotals());
    const held = this.writers.get(batch.instanceId);
    const writer = held === undefined || held.retired(utcDay(batch.now - DAY_MS)) ? new RollupWriter(this.writerMaxValues) : held;
    // Until the flush commits, its writer's totals hold visits that may not be: a failed flush's retry starts anew.
    this.writers.delete(batch.instanceId);
    const perLink = await this.transact(batch, totals, writer);
    this.writers.set(batch.instanceId, writer);
    return perLink;
  }

  /**
   * PostgreSQL writes the rollups of accounts expected to record all their visits (expectedInFull)
   * before it locks any shared row, so instances flushing at once write them side by side (ADR 0049).
   * If such an account is granted less, a savepoint undoes them and they are written after the grant.
   */
  private transact(batch: FlushBatch, totals: [string, number][][], writer: RollupWriter): Promise<Map<string, number>> {
    return this.db.transaction().execute(async (tx) => {
      const early = batch.days.map((day, d) => this.expectedInFull(day, totals[d]!));
      if (early.every((accounts) => accounts.size === 0)) return this.grantAndWrite(tx, batch, totals, writer, []);
      const earlyRecorded: Recorded[] = [];
      // Loops, not push(...list): a spread of some 120,000 links or more overflows the stack.
      for (const [d, day] of batch.days.entries()) for (const r of (await day.grant(early[d]!)).recorded) earlyRecorded.push(r);
      await sql`savepoint early_rollups`.execute(tx);
      await writeRollups(tx, this.dialect, writer, earlyRecorded);
      try {
        return await this.grantAndWrite(tx, batch, totals, writer, early);
      } catch (error) {
        if (!(error instanceof EarlyShortfall)) throw error;
        await sql`rollback to savepoint early_rollups`.execute(tx);
        // Its totals hold the rollups just undone: they come back out, and the writer keeps its rows.
        for (const [i, r] of earlyRecorded.entries()) {
          writer.remove(r);
          if (i % SLICE === SLICE - 1) await breathe();
        }
        return this.grantAndWrite(tx, batch, totals, writer, []);
      }
    });
  }

  /** The shared rows of a flush, every day row locked first (see grant); `early[d]`: accounts of day d whose rollups are written. */
  private async grantAndWrite(tx: Tx, batch: FlushBatch, totals: [string, number][][], writer: RollupWriter, early: Map<string, number>[]) {
    for (const day of batch.days) await lockDay(tx, day.day);
    const late: Recorded[] = [];
    const perLink = new Map<string, number>();
    const shortfalls: Shortfall[] = [...batch.dropped];
    const today = utcDay(batch.now);
    let past = false;
    for (const [d, day] of batch.days.entries()) {
      const { granted, reasons } = await this.grant(tx, day, totals[d]!, batch.limits);
      const written = early[d] ?? new Map<string, number>();
      for (const [account, n] of written) if (granted.get(account) !== n) throw new EarlyShortfall();
      const outcome = await day.grant(granted, perLink);
      past ||= day.day < today && outcome.recorded.length > 0;
      for (const r of outcome.recorded) if (!written.has(r.account)) late.push(r);
      for (const [linkId, r] of outcome.refused) shortfalls.push({ linkId, reason: reasons.get(r.account)!, count: r.count, from: day.from, to: batch.now });
    }
    await writeRollups(tx, this.dialect, writer, late);
    await addLinkVisits(tx, this.dialect, perLink);
    // Stats keep the sums of past days (stats-service.ts) until a flush adds to one.
    if (past) await bumpPastVersion(tx);
    await addGaps(tx, this.dialect, shortfalls);
    await beat(tx, batch.instanceId, batch.startedAt, batch.now, batch.now);
    return perLink;
  }

  /**
   * The accounts of a day expected to record all their visits: all but those left short at their last
   * flush this month, and none on a day whose ceiling was reached. A wrong guess writes rollups twice.
   */
  private expectedInFull(day: DayVisits, totals: [string, number][]): Map<string, number> {
    // SQLite's transaction holds the one write lock from its start: nothing to gain, and the savepoint
    // would have every page the rollups change copied to its journal (a flush twice as long).
    if (this.dialect === 'sqlite' || this.short.has(day.day)) return new Map();
    const month = day.day.slice(0, 7);
    return new Map(totals.filter(([account]) => !this.short.has(`${month}|${account}`)));
  }

  /** Remembers which accounts (per month) and days (ceiling) a grant left short (expectedInFull). */
  private noteShort(key: string, short: boolean): void {
    if (!short) this.short.delete(key);
    else {
      if (this.short.size >= SHORT_MAX) this.short.clear();
      this.short.add(key);
    }
  }

  /**
   * The day's ceiling first, then each account (ascending) from its free visits and packs. Every flush
   * locks in one order (days, accounts, packs, links, gaps, each sorted), so PostgreSQL never deadlocks.
   */
  private async grant(tx: Tx, day: DayVisits, totals: [string, number][], limits: RecordingLimits) {
    const month = day.day.slice(0, 7);
    let dayLeft = await grantDay(tx, day.day, day.visits, limits.trackingDailyLimit);
    this.noteShort(day.day, dayLeft < day.visits);
    // Unless the ceiling binds, every account is offered all its visits, and one statement serves them all.
    const accounts = totals.filter(([account]) => account !== TRIAL_GROUP);
    const all = dayLeft === day.visits ? await grantAccounts(tx, this.dialect, month, accounts, limits.freeVisitsPerMonth) : undefined;
    // One account at a time: every month row is made first, as one statement makes them, before any is locked.
    if (all === undefined)
      await ensureMonths(
        tx,
        this.dialect,
        month,
        accounts.map(([account]) => account),
      );
    const granted = new Map<string, number>();
    const reasons = new Map<string, GapReason>();
    for (const [account, own] of totals) {
      if (all === undefined) await breathe();
      const offer = Math.min(own, dayLeft);
      // Trial links belong to no account: only the service ceiling bounds them.
      const got =
        account === TRIAL_GROUP
          ? offer
          : all !== undefined
            ? all.get(account)!
            : ((await grantAccounts(tx, this.dialect, month, [[account, offer]], limits.freeVisitsPerMonth)).get(account) ?? 0);
      dayLeft -= got;
      granted.set(account, got);
      this.noteShort(`${month}|${account}`, got < own);
      reasons.set(account, got < offer ? 'allowance_used_up' : 'daily_ceiling_reached');
    }
    await returnDay(tx, day.day, dayLeft);
    return { granted, reasons };
  }

  async beat(instanceId: string, startedAt: number, now: number, flushedTo?: number): Promise<void> {
    await beat(this.db, instanceId, startedAt, now, flushedTo);
  }

  reapSilent(staleBefore: number, now: number, self: string): Promise<number> {
    return this.db.transaction().execute((tx) => reapSilentInstances(tx, staleBefore, now, self));
  }

  async leave(instanceId: string): Promise<void> {
    this.writers.delete(instanceId);
    await this.db.deleteFrom('recorder_instances').where('id', '=', instanceId).execute();
  }
}

/**
 * The instance's row: its heartbeat, and with `flushedTo` the time before which all its visits are
 * in. A new row (the first beat, or one after being reaped) starts from its first beat.
 */
async function beat(db: Kysely<AnalyticsDB>, id: string, startedAt: number, now: number, flushedTo?: number): Promise<void> {
  await db
    .insertInto('recorder_instances')
    .values({ id, started_at: startedAt, beat_at: now, flushed_to: flushedTo ?? now })
    .onConflict((oc) => oc.column('id').doUpdateSet(flushedTo === undefined ? { beat_at: now } : { beat_at: now, flushed_to: flushedTo }))
    .execute();
}
