import { type Kysely, type Transaction } from 'kysely';
import type { Database, Dialect } from '../../platform/database/database.js';
import { ResettingCache } from '../../platform/resetting-cache.js';
import { addCounts, letOthersRun, lockInOrder, raiseColumn } from '../../platform/database/additive.js';
import { choose, countRows, demand, TRIAL_GROUP, visitorCodes, type DayDemand, type DayGrant } from '../counts.js';
import type { FlushBatch, GapReason, RecordingLimits, RecordingStore, Visit } from '../ports.js';
import { addStored } from '../visitors.js';
import type { DB } from '../../platform/database/schema.js';
import { addGaps, reapSilentInstances } from './visit-gaps.js';
import { grantAccounts, grantDay, lockDay, returnDay } from './visit-allowance.js';

type Tx = Transaction<DB>;

const COUNT_KEYS = ['link_id', 'day', 'dimension', 'value'];
const COUNTERS = ['s', 'q', 's_bot', 'q_bot'];

/** Recording storage: the flush transaction, heartbeats, and reaping of dead instances. */
export class KyselyRecordingStore implements RecordingStore {
  private readonly db: Kysely<DB>;
  private readonly dialect: Dialect;
  /** Visitor sketches as this instance last stored or read them (`link\tday\tsource\tbot`), encoded; forgotten when full. */
  private readonly knownVisitors = new ResettingCache<Uint8Array>(100_000);

  constructor(database: Database) {
    this.db = database.db;
    this.dialect = database.dialect;
  }

  /**
   * One transaction. Every flush locks its days' rows first (ascending), then accounts, packs, links
   * and gaps, each in order, so flushes of several instances wait for each other instead of deadlocking.
   */
  async flush(batch: FlushBatch): Promise<Visit[]> {
    const { recorded, visitors } = await this.db.transaction().execute(async (tx) => {
      const days = demand(batch.visits);
      for (const day of days.keys()) await lockDay(tx, day);
      const grants = new Map<string, DayGrant>();
      for (const [day, want] of days) grants.set(day, await this.grant(tx, day, want, batch.limits));
      const { recorded, refused } = choose(batch.visits, grants, batch.now);
      await addCounts(tx, this.dialect, 'visit_counts', COUNT_KEYS, COUNTERS, countRows(recorded));
      await this.addLinkVisits(tx, recorded);
      const visitors = await this.addVisitors(tx, recorded);
      await addGaps(tx, this.dialect, [...batch.dropped, ...refused]);
      await beat(tx, batch.instanceId, batch.startedAt, batch.now, batch.now);
      return { recorded, visitors };
    });
    // Only what committed is known to be stored.
    for (const [key, sketch] of visitors) this.knownVisitors.set(key, sketch);
    return recorded;
  }

  /**
   * People's visits take the day's ceiling first, shared out in account order (ascending); then each
   * account takes its share from its free visits and packs, and what it could not use goes back to the
   * day. Trial links take only from the ceiling. Bots take from their own ceiling and no allowance.
   */
  private async grant(tx: Tx, day: string, want: DayDemand, limits: RecordingLimits): Promise<DayGrant> {
    let left = await grantDay(
      tx,
      day,
      [...want.accounts.values()].reduce((a, b) => a + b, 0),
      limits.trackingDailyLimit,
    );
    const offers = new Map<string, number>();
    for (const [account, own] of want.accounts) {
      offers.set(account, Math.min(own, left));
      left -= offers.get(account)!;
    }
    const charged = [...offers].filter(([account]) => account !== TRIAL_GROUP);
    const got = await grantAccounts(tx, this.dialect, day.slice(0, 7), charged, limits.freeVisitsPerMonth);
    const grant: DayGrant = { accounts: new Map(), reasons: new Map(), bots: await grantDay(tx, day, want.bots, limits.trackingDailyBotLimit, 'bots') };
    let unused = 0;
    for (const [account, offer] of offers) {
      const granted = account === TRIAL_GROUP ? offer : (got.get(account) ?? 0);
      unused += offer - granted;
      grant.accounts.set(account, granted);
      grant.reasons.set(account, (granted < offer ? 'allowance_used_up' : 'daily_ceiling_reached') satisfies GapReason);
    }
    await returnDay(tx, day, unused);
    return grant;
  }

  /** `links.visits`, the all-time total of every recorded visit (ADR 0004), raised per link. */
  private async addLinkVisits(tx: Tx, recorded: Visit[]): Promise<void> {
    const perLink = new Map<string, number>();
    for (const visit of recorded) perLink.set(visit.link.id, (perLink.get(visit.link.id) ?? 0) + 1);
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

  /**
   * Adds the flush's visitor codes to the stored sketches; their day rows are locked, so no one else
   * writes them meanwhile. A sketch this instance knows to be stored already with every code's rank
   * (most visits of a returning visitor) is neither read nor written. Returns the sketches as stored now.
   */
  private async addVisitors(tx: Tx, recorded: Visit[]): Promise<Map<string, Uint8Array>> {
    const written = new Map<string, Uint8Array>();
    let statements = 0;
    for (const [key, codes] of visitorCodes(recorded)) {
      const known = this.knownVisitors.get(key);
      if (known !== undefined && addStored(known, codes) === undefined) continue;
      if (++statements % 250 === 0) await letOthersRun(this.dialect);
      const [linkId, day, source, bot] = key.split('\t') as [string, string, string, string];
      const cell = { link_id: linkId, day, source, bot: Number(bot) };
      const stored = await tx
        .selectFrom('visit_visitors')
        .select('sketch')
        .where('link_id', '=', linkId)
        .where('day', '=', day)
        .where('source', '=', source)
        .where('bot', '=', cell.bot)
        .executeTakeFirst();
      const sketch = addStored(stored?.sketch ?? new Uint8Array(0), codes);
      if (sketch !== undefined)
        await tx
          .insertInto('visit_visitors')
          .values({ ...cell, sketch })
          .onConflict((oc) => oc.columns(['link_id', 'day', 'source', 'bot']).doUpdateSet({ sketch }))
          .execute();
      written.set(key, sketch ?? stored!.sketch);
    }
    return written;
  }

  async beat(instanceId: string, startedAt: number, now: number, flushedTo?: number): Promise<void> {
    await beat(this.db, instanceId, startedAt, now, flushedTo);
  }

  reapSilent(staleBefore: number, now: number, self: string): Promise<number> {
    return this.db.transaction().execute((tx) => reapSilentInstances(tx, staleBefore, now, self));
  }

  async leave(instanceId: string): Promise<void> {
    await this.db.deleteFrom('recorder_instances').where('id', '=', instanceId).execute();
  }
}

/**
 * The instance's row: its heartbeat, and with `flushedTo` the time before which all its visits are
 * in. A new row (the first beat, or one after being reaped) starts from its first beat.
 */
async function beat(db: Kysely<DB>, id: string, startedAt: number, now: number, flushedTo?: number): Promise<void> {
  await db
    .insertInto('recorder_instances')
    .values({ id, started_at: startedAt, beat_at: now, flushed_to: flushedTo ?? now })
    .onConflict((oc) => oc.columns(['id']).doUpdateSet(flushedTo === undefined ? { beat_at: now } : { beat_at: now, flushed_to: flushedTo }))
    .execute();
}
