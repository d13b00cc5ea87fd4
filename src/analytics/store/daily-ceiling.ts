import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../platform/database/schema.js';
import { capped } from '../../platform/database/additive.js';
import type { MonthAsk, VisitAllowance } from '../../billing/ports.js';
import { demandKey, TRIAL_GROUP, type DayDemand } from '../counts.js';
import type { RecordingLimits } from '../ports.js';

type Tx = Transaction<DB>;

/** Locks the day's row for the rest of the transaction, creating it on the day's first flush. */
export async function lockDay(tx: Tx, day: string): Promise<void> {
  await tx
    .insertInto('visit_days')
    .values({ day, recorded: 0, bots: 0, last_grant: 0 })
    .onConflict((oc) => oc.column('day').doUpdateSet({ recorded: sql<number>`visit_days.recorded` }))
    .execute();
}

/** Takes up to n visits from the day's ceiling of people or of bots (locked by lockDay); returns how many. */
export async function grantDay(tx: Tx, day: string, n: number, limit: number, counter: 'recorded' | 'bots' = 'recorded'): Promise<number> {
  if (n <= 0) return 0;
  const row = await tx
    .updateTable('visit_days')
    .set({ [counter]: capped(counter, n, limit), last_grant: sql<number>`${capped(counter, n, limit)} - ${sql.ref(counter)}` })
    .where('day', '=', day)
    .returning('last_grant')
    .executeTakeFirstOrThrow();
  return Number(row.last_grant);
}

/** Gives back what was taken from the day but not used by any account (same transaction, same lock). */
export async function returnDay(tx: Tx, day: string, n: number): Promise<void> {
  if (n > 0)
    await tx
      .updateTable('visit_days')
      .set({ recorded: sql<number>`recorded - ${n}` })
      .where('day', '=', day)
      .execute();
}

/**
 * The demands (demandKey) that the rows, read without a lock, have room for in full. A flush writes their counts before it takes the
 * locks (recording-store.ts); an answer made stale by another flush meanwhile shows in its grants.
 */
export async function demandsWithRoom(db: Kysely<DB>, allowance: VisitAllowance, days: Map<string, DayDemand>, limits: RecordingLimits): Promise<Set<string>> {
  const room = new Set<string>();
  if (days.size === 0) return room;
  const [ceilings, accounts] = await Promise.all([
    db
      .selectFrom('visit_days')
      .select(['day', 'recorded', 'bots'])
      .where('day', 'in', [...days.keys()])
      .execute(),
    allowance.withRoom(monthsAsked(days), limits.freeVisitsPerMonth),
  ]);
  for (const [day, want] of days) {
    const row = ceilings.find((r) => r.day === day);
    const people = [...want.accounts.values()].reduce((a, b) => a + b, 0);
    if (Number(row?.bots ?? 0) + want.bots <= limits.trackingDailyBotLimit) room.add(demandKey(day, ''));
    if (Number(row?.recorded ?? 0) + people > limits.trackingDailyLimit) continue;
    for (const account of want.accounts.keys()) if (account === TRIAL_GROUP || accounts.has(account)) room.add(demandKey(day, account));
  }
  return room;
}

/** What the days ask of each account's allowance per month; trial links are charged to none. */
export function monthsAsked(days: Map<string, DayDemand>): MonthAsk[] {
  const asked = new Map<string, MonthAsk>();
  for (const [day, want] of days)
    for (const [accountId, n] of want.accounts) {
      if (accountId === TRIAL_GROUP) continue;
      const month = day.slice(0, 7);
      const key = `${month}\t${accountId}`;
      const ask = asked.get(key) ?? asked.set(key, { month, accountId, visits: 0 }).get(key)!;
      ask.visits += n;
    }
  return [...asked.values()];
}
