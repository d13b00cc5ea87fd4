import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { AnalyticsDB } from './analytics-schema.js';
import type { Dialect } from '../../platform/database/database.js';
import { jsonRows } from '../../platform/database/json-rows.js';
import { breathe } from '../visits.js';

type Tx = Transaction<AnalyticsDB>;

/** Thrown when a pack changed between its lock and its update; the whole flush is retried. */
export class PackRaceError extends Error {}

/**
 * `counter + n`, capped at `limit` and never lowered (the limit may have been lowered since). Every
 * SET expression of one UPDATE sees the old row, so `last_grant = capped - counter` is what this very
 * statement granted: one guarded statement, no read-modify-write, exact under concurrency (PostgreSQL
 * locks the row until commit and re-evaluates a waiting UPDATE on the new row; SQLite has one writer).
 */
const capped = (column: string, n: number | RawBuilder<number>, limit: number) =>
  sql<number>`case when ${sql.ref(column)} >= ${limit} then ${sql.ref(column)} when ${sql.ref(column)} + ${n} > ${limit} then ${limit} else ${sql.ref(column)} + ${n} end`;

/**
 * What a grant of up to n visits from a month's free visits sets on its visit_months row: free_used
 * raised, capped at `free`; last_grant, what that took; and the same counted as recorded. One
 * statement per row, whether n is a number (grantAccount) or a column of the offers (grantAccounts).
 */
const fromFreeVisits = (n: number | RawBuilder<number>, free: number) => {
  const used = capped('free_used', n, free);
  return { free_used: used, last_grant: sql<number>`${used} - free_used`, recorded: sql<number>`recorded + ${used} - free_used` };
};

/**
 * Locks the day's row for the rest of the transaction, creating it first on the day's first flush: an
 * update that finds the row (every other flush) both locks it and spares the insert.
 */
export async function lockDay(tx: Tx, day: string): Promise<void> {
  const touch = () =>
    tx
      .updateTable('visit_days')
      .set({ recorded: sql<number>`recorded` })
      .where('day', '=', day)
      .executeTakeFirst();
  if (Number((await touch()).numUpdatedRows) > 0) return;
  await tx
    .insertInto('visit_days')
    .values({ day, recorded: 0, last_grant: 0 })
    .onConflict((oc) => oc.column('day').doNothing())
    .execute();
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
  if (n > 0)
    await tx
      .updateTable('visit_days')
      .set({ recorded: sql<number>`recorded - ${n}` })
      .where('day', '=', day)
      .execute();
}

/**
 * Up to n visits from the account's free visits of the month, then from its active packs, oldest first.
 * One statement in the usual flush (the month's row exists, the free visits suffice): what it takes
 * from the free visits is counted as recorded by the same statement.
 */
export async function grantAccount(tx: Tx, dialect: Dialect, accountId: string, month: string, n: number, free: number): Promise<number> {
  if (n <= 0) return 0;
  const takeFree = () =>
    tx.updateTable('visit_months').set(fromFreeVisits(n, free)).where('account_id', '=', accountId).where('month', '=', month).returning('last_grant');
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
  return fromFree === n ? n : fromFree + (await grantFromPacks(tx, dialect, accountId, month, n - fromFree));
}

/** Account ids as a derived table of one column, `account_id` (json-rows.ts). */
const accountList = (dialect: Dialect, accounts: string[]) =>
  jsonRows(
    dialect,
    accounts.map((account) => [account]),
    [['account_id', 'text']],
  );

/**
 * Creates the month's rows of accounts that have none yet (rows of zeros: nothing is granted or
 * counted), in one statement before the flush's transaction. Inside it, a new row's insert would take
 * that row's lock out of grantAccounts' ascending order. `accounts` are in ascending order, so two
 * instances inserting overlapping accounts at once wait for each other in one order.
 */
export async function ensureMonths(db: Kysely<AnalyticsDB>, dialect: Dialect, month: string, accounts: string[]): Promise<void> {
  if (accounts.length === 0) return;
  const rows = accountList(dialect, accounts);
  // "where true": SQLite would read the ON of ON CONFLICT as a join constraint of the SELECT.
  await sql`insert into visit_months (account_id, month, recorded, free_used, last_grant)
    select account_id, ${month}, 0, 0, 0 from ${rows} as v where true
    on conflict (account_id, month) do nothing`.execute(db);
}

/**
 * grantAccount for every account of one flush whose day's ceiling does not bind (each account is
 * offered all its visits, so the order of the accounts changes nothing): one statement takes each
 * account's share of its free visits, where grantAccount costs a statement per account (a database
 * round trip each on PostgreSQL, while the day's row is locked). Accounts short of free visits then
 * go to their packs one by one, in ascending order. PostgreSQL first locks the month's rows in
 * ascending order, the order of grantAccount's locks, so that flushes of two days of one month (the
 * day's row does not serialise those) cannot deadlock. `wants` are in ascending account order.
 */
export async function grantAccounts(tx: Tx, dialect: Dialect, month: string, wants: [string, number][], free: number): Promise<Map<string, number>> {
  const asked = wants.filter(([, n]) => n > 0);
  const got = new Map<string, number>();
  if (asked.length === 0) return got;
  const offers = jsonRows(dialect, asked, [
    ['account_id', 'text'],
    ['n', 'bigint'],
  ]);
  if (dialect === 'postgres') {
    await sql`select account_id from visit_months where month = ${month}
      and account_id in (select account_id from ${offers} as v) order by account_id for update`.execute(tx);
  }
  const set = fromFreeVisits(sql<number>`v.n`, free);
  const taken = await sql<{ account_id: string; last_grant: number | string }>`update visit_months
    set free_used = ${set.free_used}, last_grant = ${set.last_grant}, recorded = ${set.recorded}
    from ${offers} as v where visit_months.account_id = v.account_id and visit_months.month = ${month}
    returning visit_months.account_id, visit_months.last_grant`.execute(tx);
  const fromFree = new Map(taken.rows.map((row) => [row.account_id, Number(row.last_grant)]));
  // Accounts past their free visits go to their packs; those without a pack with room left (every
  // flush of an account whose allowance is used up) are found by one statement, not one each.
  const short = asked.filter(([account, want]) => (fromFree.get(account) ?? want) < want).map(([account]) => account);
  const withPacks = short.length > 0 ? await accountsWithPacks(tx, dialect, short) : new Set<string>();
  for (const [account, want] of asked) {
    const own = fromFree.get(account);
    // No row (ensureMonths was not called for it): the one-account path creates it.
    if (own === undefined) got.set(account, await grantAccount(tx, dialect, account, month, want, free));
    else if (own === want || !withPacks.has(account)) got.set(account, own);
    else {
      // Statements per account again: yield between accounts (visits.ts, breathe).
      await breathe();
      got.set(account, own + (await grantFromPacks(tx, dialect, account, month, want - own)));
    }
  }
  return got;
}

/** Which of `accounts` have an active pack with visits left (read, not locked: grantPacks locks them). */
async function accountsWithPacks(tx: Tx, dialect: Dialect, accounts: string[]): Promise<Set<string>> {
  const { rows } = await sql<{ account_id: string }>`select distinct account_id from capacity_packs
    where account_id in (select account_id from ${accountList(dialect, accounts)} as v)
    and status = 'active' and visits_used < visits`.execute(tx);
  return new Set(rows.map((row) => row.account_id));
}

/** Up to n visits from the account's active packs, oldest first, counted as recorded in its month's row. */
async function grantFromPacks(tx: Tx, dialect: Dialect, accountId: string, month: string, n: number): Promise<number> {
  const fromPacks = await grantPacks(tx, dialect, accountId, n);
  if (fromPacks > 0) {
    await tx
      .updateTable('visit_months')
      .set({ recorded: sql<number>`recorded + ${fromPacks}` })
      .where('account_id', '=', accountId)
      .where('month', '=', month)
      .execute();
  }
  return fromPacks;
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
export async function accountRecording(db: Kysely<AnalyticsDB>, free: number, accountId: string, month: string) {
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
