import { sql, type Transaction } from 'kysely';
import type { AnalyticsDB } from './analytics-schema.js';
import type { Dialect } from './database.js';

type Tx = Transaction<AnalyticsDB>;

/** Thrown when a pack changed between its lock and its update; the whole flush is retried. */
export class PackRaceError extends Error {}

/**
 * `counter + n`, capped at `limit` and never lowered (the limit may have been lowered since). Every
 * SET expression of one UPDATE sees the old row, so `last_grant = capped - counter` is what this very
 * statement granted: one guarded statement, no read-modify-write, exact under concurrency (PostgreSQL
 * locks the row until commit and re-evaluates a waiting UPDATE on the new row; SQLite has one writer).
 */
const capped = (column: string, n: number, limit: number) =>
  sql<number>`case when ${sql.ref(column)} >= ${limit} then ${sql.ref(column)} when ${sql.ref(column)} + ${n} > ${limit} then ${limit} else ${sql.ref(column)} + ${n} end`;

/**
 * Locks the day's row for the rest of the transaction, creating it first on the day's first flush: an
 * update that finds the row (every other flush) both locks it and spares the insert.
 */
export async function lockDay(tx: Tx, day: string): Promise<void> {
  const touch = () => tx.updateTable('visit_days').set({ recorded: sql<number>`recorded` }).where('day', '=', day).executeTakeFirst();
  if (Number((await touch()).numUpdatedRows) > 0) return;
  await tx.insertInto('visit_days').values({ day, recorded: 0, last_grant: 0 }).onConflict((oc) => oc.column('day').doNothing()).execute();
  await touch();
}

/** Takes up to n visits from the service-wide ceiling of one UTC day (locked by lockDay); returns how many. */
export async function grantDay(tx: Tx, day: string, n: number, limit: number): Promise<number> {
  if (n <= 0) return 0;
  const row = await tx
    .updateTable('visit_days')
    .set({ recorded: capped('recorded', n, limit), last_grant: sql<number>`${capped('recorded', n, limit)} - recorded` })
    .where('day', '=', day)
    .returning('last_grant')
    .executeTakeFirstOrThrow();
  return Number(row.last_grant);
}

/** Gives back what was taken from the day but not used by any account (same transaction, same lock). */
export async function returnDay(tx: Tx, day: string, n: number): Promise<void> {
  if (n > 0) await tx.updateTable('visit_days').set({ recorded: sql<number>`recorded - ${n}` }).where('day', '=', day).execute();
}

/**
 * Up to n visits from the account's free visits of the month, then from its active packs, oldest first.
 * One statement in the usual flush (the month's row exists, the free visits suffice): what it takes
 * from the free visits is counted as recorded by the same statement.
 */
export async function grantAccount(tx: Tx, dialect: Dialect, accountId: string, month: string, n: number, free: number): Promise<number> {
  if (n <= 0) return 0;
  const takeFree = () =>
    tx
      .updateTable('visit_months')
      .set({
        free_used: capped('free_used', n, free),
        last_grant: sql<number>`${capped('free_used', n, free)} - free_used`,
        recorded: sql<number>`recorded + ${capped('free_used', n, free)} - free_used`,
      })
      .where('account_id', '=', accountId)
      .where('month', '=', month)
      .returning('last_grant');
  let row = await takeFree().executeTakeFirst();
  if (row === undefined) {
    await tx
      .insertInto('visit_months')
      .values({ account_id: accountId, month, recorded: 0, free_used: 0, last_grant: 0 })
      .onConflict((oc) => oc.columns(['account_id', 'month']).doNothing())
      .execute();
    row = await takeFree().executeTakeFirstOrThrow();
  }
  const fromFree = Number(row.last_grant);
  if (fromFree === n) return n;
  const fromPacks = await grantPacks(tx, dialect, accountId, n - fromFree);
  if (fromPacks > 0) {
    await tx
      .updateTable('visit_months')
      .set({ recorded: sql<number>`recorded + ${fromPacks}` })
      .where('account_id', '=', accountId)
      .where('month', '=', month)
      .execute();
  }
  return fromFree + fromPacks;
}

async function grantPacks(tx: Tx, dialect: Dialect, accountId: string, n: number): Promise<number> {
  let query = tx
    .selectFrom('capacity_packs')
    .select(['id', 'visits', 'visits_used'])
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .where(sql<boolean>`visits_used < visits`)
    .orderBy('created_at')
    .orderBy('id');
  // PostgreSQL: lock the packs so a refund (guarded on visits_used = 0) waits for this flush. SQLite has
  // no FOR UPDATE and needs none: its single writer serializes this transaction with any refund.
  if (dialect === 'postgres') query = query.forUpdate();
  let left = n;
  for (const pack of await query.execute()) {
    if (left === 0) break;
    const take = Math.min(left, Number(pack.visits) - Number(pack.visits_used));
    const updated = await tx
      .updateTable('capacity_packs')
      .set({ visits_used: sql<number>`visits_used + ${take}` })
      .where('id', '=', pack.id)
      .where('status', '=', 'active')
      .where(sql<boolean>`visits_used + ${take} <= visits`)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) throw new PackRaceError(`capacity pack ${pack.id} changed during a flush`);
    left -= take;
  }
  return n - left;
}

/** What an account has recorded this month and what it may still record (for the usage endpoint). */
export async function accountRecording(db: import('kysely').Kysely<AnalyticsDB>, free: number, accountId: string, month: string) {
  const row = await db
    .selectFrom('visit_months')
    .select(['recorded', 'free_used'])
    .where('account_id', '=', accountId)
    .where('month', '=', month)
    .executeTakeFirst();
  const packs = await db
    .selectFrom('capacity_packs')
    .select(sql<number>`coalesce(sum(visits - visits_used), 0)`.as('left'))
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  const freeUsed = Number(row?.free_used ?? 0);
  return { recordedThisMonth: Number(row?.recorded ?? 0), freeLeft: Math.max(0, free - freeUsed), packsLeft: Number(packs.left) };
}
