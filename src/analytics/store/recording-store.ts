import { setImmediate as nextTurn } from 'node:timers/promises';
import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import type { Database, Dialect } from '../../platform/database/database.js';
import { letOthersRun, lockInOrder, raiseColumn } from '../../platform/database/additive.js';
import { addDemand, choose, grantsAll, inLockOrder, splitByDemand, Tallies, TRIAL_GROUP, type DayDemand, type DayGrant, type Tally } from '../counts.js';
import { FlushUnanswered, type FlushBatch, type GapReason, type RecordingLimits, type RecordingStore, type Visit } from '../ports.js';
import type { DB } from '../../platform/database/schema.js';
import { compactSome } from './compaction.js';
import { addGaps, reapSilentInstances } from './visit-gaps.js';
import { demandsWithRoom, grantDay, lockDay, monthsAsked, returnDay } from './daily-ceiling.js';
import type { VisitAllowance } from '../../billing/ports.js';

/** A flush's grants fell short of visits whose tallies it wrote before them (another flush took the room). */
class RoomTaken extends Error {}

type Tx = Transaction<DB>;

/** SQLite runs each statement on the event loop, so redirects wait for it; on PostgreSQL each costs a round trip. Six parameters a row. */
const TALLIES_PER_STATEMENT = { sqlite: 50, postgres: 500 } as const;
/** A few milliseconds' work between two turns of the event loop. */
const VISITS_PER_SLICE = 1000;

/** Lets waiting redirects be answered between slices. */
async function inSlices(visits: Visit[], work: (slice: Visit[]) => void): Promise<void> {
  for (let i = 0; i < visits.length; i += VISITS_PER_SLICE) {
    work(visits.slice(i, i + VISITS_PER_SLICE));
    await nextTurn();
  }
}

/** Recording storage: the flush transaction, heartbeats, and reaping of dead instances. */
export class KyselyRecordingStore implements RecordingStore {
  private readonly db: Kysely<DB>;
  private readonly dialect: Dialect;
  /** This instance's tallies, as its rows of `visit_tallies` hold them (counts.ts). */
  private readonly tallies = new Tallies();
  private readonly upserts = new Map<number, string>();
  /** Whether the instance's row was written once: missing after that, the instance was reaped. */
  private joined = false;
  private flushes = 0;
  /** The flush whose COMMIT went unanswered, until settled. */
  private unanswered: number | undefined;

  constructor(
    database: Database,
    private readonly allowance: VisitAllowance,
  ) {
    this.db = database.db;
    this.dialect = database.dialect;
  }

  /**
   * Locks are taken in one order (days ascending, then the accounts' months at once, packs, links), so concurrent flushes wait instead
   * of deadlocking; tallies need none, as each instance writes only its own. Visits with room (demandsWithRoom) are written before the
   * locks, so another flush waits only for the grants, not for thousands of rows; if a flush takes the room meanwhile, the transaction
   * is made again with every tally after the grants (ADR 0049).
   */
  async flush(batch: FlushBatch): Promise<Visit[]> {
    this.mustBeSettled();
    const asked = new Map<string, DayDemand>();
    await inSlices(batch.visits, (slice) => addDemand(asked, slice));
    const days = inLockOrder(asked);
    try {
      return await this.transaction(batch, days, await demandsWithRoom(this.db, this.allowance, days, batch.limits));
    } catch (error) {
      if (error instanceof FlushUnanswered) throw error;
      // The tallies now hold visits their rows may not: from here on they are written as a new writer's.
      this.tallies.forget();
      if (!(error instanceof RoomTaken)) throw error;
    }
    try {
      return await this.transaction(batch, days, new Set());
    } catch (error) {
      if (!(error instanceof FlushUnanswered)) this.tallies.forget();
      throw error;
    }
  }

  /** The tallies may hold the unanswered flush's visits: a write would count them, and a heartbeat would vouch for them (`flushed_to`). */
  private mustBeSettled(): void {
    if (this.unanswered !== undefined) throw new Error('a flush went unanswered at its commit: settle it first');
  }

  /**
   * A conflict on the flush's row in `recorder_flushes` means it took; on PostgreSQL the insert waits for a COMMIT still in flight on
   * the dropped connection. The row inserted here goes with the others at the next flush.
   */
  async settle(instanceId: string, now: number): Promise<boolean> {
    const inserted = await this.db
      .insertInto('recorder_flushes')
      .values({ instance_id: instanceId, flush: this.unanswered!, at: now })
      .onConflict((oc) => oc.columns(['instance_id', 'flush']).doNothing())
      .executeTakeFirst();
    const took = Number(inserted.numInsertedOrUpdatedRows) === 0;
    this.unanswered = undefined;
    if (!took) this.tallies.forget();
    return took;
  }

  /** The tallies of the demands in `early` are written before the grants, which must then grant them all (else RoomTaken). */
  private async transaction(batch: FlushBatch, days: Map<string, DayDemand>, early: Set<string>): Promise<Visit[]> {
    const [first, rest] = splitByDemand(batch.visits, days, early);
    const flush = ++this.flushes;
    let done: Visit[] | undefined;
    try {
      await this.db.transaction().execute(async (tx) => {
        // Its row is written first, so that a reaping waits for this flush and then finds it alive.
        await this.checkIn(tx, batch.instanceId, batch.startedAt, batch.now, batch.now);
        // The instance's earlier rows can go: each was settled before this flush began.
        await tx.insertInto('recorder_flushes').values({ instance_id: batch.instanceId, flush, at: batch.now }).execute();
        await tx.deleteFrom('recorder_flushes').where('instance_id', '=', batch.instanceId).where('flush', '<', flush).execute();
        const touchedFirst = await this.writeTallies(tx, first);
        for (const day of days.keys()) await lockDay(tx, day);
        await this.allowance.lockMonths(tx, monthsAsked(days));
        const grants = new Map<string, DayGrant>();
        for (const [day, want] of days) grants.set(day, await this.grant(tx, day, want, batch.limits));
        const all = grantsAll(days, grants);
        if (!all && !grantsAll(days, grants, early)) throw new RoomTaken();
        const { recorded, refused } = all ? { recorded: rest, refused: [] } : choose(rest, grants, batch.now);
        const touched = touchedFirst.concat(await this.writeTallies(tx, recorded));
        await this.addLinkVisits(tx, touched);
        await addGaps(tx, this.dialect, [...batch.dropped, ...refused]);
        done = [...first, ...recorded];
      });
    } catch (error) {
      // Failed before its COMMIT, it did not take; failed at it, it may have.
      if (done === undefined) throw error;
      this.unanswered = flush;
      throw new FlushUnanswered(done, error);
    }
    return done!;
  }

  /** Writes each touched tally whole: only this writer writes its rows, so nothing is read first. */
  private async writeTallies(tx: Tx, visits: Visit[]): Promise<Tally[]> {
    await inSlices(visits, (slice) => this.tallies.add(slice));
    const touched = this.tallies.touched();
    const writer = this.tallies.writer;
    for (let i = 0; i < touched.length; i += TALLIES_PER_STATEMENT[this.dialect]) {
      const slice = touched.slice(i, i + TALLIES_PER_STATEMENT[this.dialect]);
      const parameters = slice.flatMap((t) => {
        const { counts, visitors } = t.encode();
        return [t.linkId, t.day, writer, 1, counts, visitors];
      });
      await tx.executeQuery(CompiledQuery.raw(this.upsertOf(tx, slice.length), parameters));
      await letOthersRun(this.dialect);
    }
    return touched;
  }

  /** Compiled once per n: building the values into Kysely's query nodes each time costs an eighth of a flush (`npm run bench:flush`). */
  private upsertOf(tx: Tx, n: number): string {
    let text = this.upserts.get(n);
    if (text === undefined) {
      const row = { link_id: '', day: '', writer: '', version: 1, counts: '', visitors: new Uint8Array(0) };
      const compiled = tx
        .insertInto('visit_tallies')
        .values(Array.from({ length: n }, () => row))
        .onConflict((oc) =>
          oc.columns(['link_id', 'day', 'writer']).doUpdateSet((eb) => ({
            version: sql<number>`visit_tallies.version + 1`,
            counts: eb.ref('excluded.counts'),
            visitors: eb.ref('excluded.visitors'),
          })),
        )
        .compile();
      if (compiled.parameters.length !== 6 * n) throw new Error("the tallies' statement takes six parameters a row");
      this.upserts.set(n, (text = compiled.sql));
    }
    return text;
  }

  /**
   * People take the day's ceiling in account order, then their allowances; what an account cannot use goes on to those the ceiling cut
   * short, and the rest back to the day: a visit is refused for the ceiling only when the day is full (ADR 0049).
   */
  private async grant(tx: Tx, day: string, want: DayDemand, limits: RecordingLimits): Promise<DayGrant> {
    let left = await grantDay(
      tx,
      day,
      [...want.accounts.values()].reduce((a, b) => a + b, 0),
      limits.trackingDailyLimit,
    );
    const grant: DayGrant = { accounts: new Map(), reasons: new Map(), bots: await grantDay(tx, day, want.bots, limits.trackingDailyBotLimit, 'bots') };
    const usedUp = new Set<string>();
    // Each round offers the accounts not used up what they still want, while the day's share lasts.
    for (let again = true; again;) {
      again = false;
      const offers = new Map<string, number>();
      for (const [account, own] of want.accounts) {
        const offer = usedUp.has(account) ? 0 : Math.min(own - (grant.accounts.get(account) ?? 0), left);
        if (offer > 0) offers.set(account, offer);
        left -= offer;
      }
      const charged = [...offers].filter(([account]) => account !== TRIAL_GROUP);
      const got = await this.allowance.grant(tx, day.slice(0, 7), charged, limits.freeVisitsPerMonth);
      for (const [account, offer] of offers) {
        const granted = account === TRIAL_GROUP ? offer : (got.get(account) ?? 0);
        grant.accounts.set(account, (grant.accounts.get(account) ?? 0) + granted);
        if (granted < offer) {
          usedUp.add(account);
          left += offer - granted;
          again = true;
        }
      }
    }
    for (const account of want.accounts.keys())
      grant.reasons.set(account, (usedUp.has(account) ? 'allowance_used_up' : 'daily_ceiling_reached') satisfies GapReason);
    await returnDay(tx, day, left);
    return grant;
  }

  /** `links.visits`, the all-time total of every recorded visit (ADR 0004), raised per link. */
  private async addLinkVisits(tx: Tx, touched: Tally[]): Promise<void> {
    const perLink = new Map<string, number>();
    for (const tally of touched) perLink.set(tally.linkId, (perLink.get(tally.linkId) ?? 0) + tally.takeAdded());
    const rows = [...perLink].sort(([a], [b]) => (a < b ? -1 : 1));
    await lockInOrder(
      tx,
      this.dialect,
      'links',
      'id',
      rows.map(([id]) => id),
    );
    await raiseColumn(tx, this.dialect, 'links', 'id', 'visits', rows);
  }

  async beat(instanceId: string, startedAt: number, now: number, flushedTo?: number): Promise<void> {
    this.mustBeSettled();
    await this.checkIn(this.db, instanceId, startedAt, now, flushedTo);
  }

  /**
   * Written before anything else, with the writer after the hourly trim: the compaction leaves listed writers' rows alone, and a
   * heartbeat trims too so an idle writer's rows reach it. A missing row means the instance was reaped and its rows may be compacted,
   * so it forgets its tallies rather than write them whole again. Beats and flushes run one at a time (recorder.ts): the listed writer only moves on.
   */
  private async checkIn(db: Kysely<DB>, instanceId: string, startedAt: number, now: number, flushedTo: number | undefined): Promise<void> {
    this.tallies.trim(now);
    const alive = await db
      .updateTable('recorder_instances')
      .set({ beat_at: now, writer: this.tallies.writer, ...(flushedTo === undefined ? {} : { flushed_to: flushedTo }) })
      .where('id', '=', instanceId)
      .returning('id')
      .executeTakeFirst();
    if (alive === undefined) {
      if (this.joined) this.tallies.forget();
      await db
        .insertInto('recorder_instances')
        .values({ id: instanceId, started_at: startedAt, beat_at: now, flushed_to: flushedTo ?? now, writer: this.tallies.writer })
        .execute();
    }
    this.joined = true;
  }

  reapSilent(staleBefore: number, now: number, self: string): Promise<number> {
    return this.db.transaction().execute((tx) => reapSilentInstances(tx, staleBefore, now, self));
  }

  compact(wait = false): Promise<number> {
    return compactSome(this.db, this.dialect, wait);
  }

  async leave(instanceId: string): Promise<void> {
    await this.db.deleteFrom('recorder_flushes').where('instance_id', '=', instanceId).execute();
    await this.db.deleteFrom('recorder_instances').where('id', '=', instanceId).execute();
  }
}
