import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../platform/database/schema.js';
import type { Dialect } from '../../platform/database/database.js';
import { jsonRows } from '../../platform/database/json-rows.js';
import { lockSelected, selectForUpdate } from '../../platform/database/additive.js';
import { demandKey, TRIAL_GROUP, type DayDemand } from '../counts.js';
import type { RecordingLimits } from '../ports.js';

type Tx = Transaction<DB>;

/**
 * `counter + n`, capped at `limit` and never lowered. Every SET expression of an UPDATE sees the old
 * row, so `last_grant = capped - counter` is what the statement granted: no read-modify-write (ADR 0049).
 */
const capped = (column: string, n: number | RawBuilder<number>, limit: number) =>
  sql<number>`case when ${sql.ref(column)} >= ${limit} then ${sql.ref(column)} when ${sql.ref(column)} + ${n} > ${limit} then ${limit} else ${sql.ref(column)} + ${n} end`;

/** A grant of up to n free visits on a visit_months row: free_used raised, what it took in last_grant and recorded. */
const fromFreeVisits = (n: RawBuilder<number>, free: number) => {
  const used = capped('free_used', n, free);
  return { free_used: used, last_grant: sql<number>`${used} - free_used`, recorded: sql<number>`recorded + ${used} - free_used` };
};

/** Locks the day's row for the rest of the transaction, creating it on the day's first flush. */
export async function lockDay(tx: Tx, day: string): Promise<void> {
  await tx
    .insertInto('visit_days')
    .values({ day, recorded: 0, bots: 0, last_grant: 0 })
    .onConflict((oc) => oc.column('day').doUpdateSet({ recorded: sql<number>`visit_days.recorded` }))
    .execute();
}

/** Takes up to n visits from a service-wide ceiling of one UTC day (locked by lockDay): people's or bots'; returns how many. */
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
 * The demands of a batch (keys of demandKey) that the rows as they stand (read, not locked) have room
 * for: a day's bots when its bot ceiling holds them all; an account's people on a day (a trial link's
 * too) when the day's ceiling holds every person the batch brings that day and, for an account, its
 * free visits of the month and then its packs hold all it asks of the batch. A flush writes the counts
 * of these before it takes the locks (recording-store.ts); an answer made stale by another flush
 * meanwhile shows in its grants.
 */
export async function demandsWithRoom(db: Kysely<DB>, dialect: Dialect, days: Map<string, DayDemand>, limits: RecordingLimits): Promise<Set<string>> {
  const room = new Set<string>();
  if (days.size === 0) return room;
  const ceilings = await db
    .selectFrom('visit_days')
    .select(['day', 'recorded', 'bots'])
    .where('day', 'in', [...days.keys()])
    .execute();
  const peopleFit = new Set<string>();
  for (const [day, want] of days) {
    const row = ceilings.find((r) => r.day === day);
    const people = [...want.accounts.values()].reduce((a, b) => a + b, 0);
    if (Number(row?.bots ?? 0) + want.bots <= limits.trackingDailyBotLimit) room.add(demandKey(day, ''));
    if (Number(row?.recorded ?? 0) + people <= limits.trackingDailyLimit) peopleFit.add(day);
  }
  // Past its free visits of a month, an account's packs (of any month) must hold the rest.
  const asked = monthsAsked(days);
  const beyondFree = new Map<string, number>();
  const packs = new Map<string, number>();
  if (asked.size > 0) {
    const list = monthAccounts(dialect, [...asked.keys()]);
    const { rows } = await sql<{ month: string; account_id: string; free_used: number | string | null; packs: number | string }>`
      select v.month, v.account_id, m.free_used,
        (select coalesce(sum(p.visits - p.visits_used), 0) from capacity_packs p where p.account_id = v.account_id and p.status = 'active') as packs
      from ${list} as v left join visit_months m on m.month = v.month and m.account_id = v.account_id`.execute(db);
    for (const row of rows) {
      const over = asked.get(`${row.month}\t${row.account_id}`)! - Math.max(0, limits.freeVisitsPerMonth - Number(row.free_used ?? 0));
      beyondFree.set(row.account_id, (beyondFree.get(row.account_id) ?? 0) + Math.max(0, over));
      packs.set(row.account_id, Number(row.packs));
    }
  }
  for (const [day, want] of days) {
    if (!peopleFit.has(day)) continue;
    for (const account of want.accounts.keys())
      if (account === TRIAL_GROUP || beyondFree.get(account)! <= packs.get(account)!) room.add(demandKey(day, account));
  }
  return room;
}

/** Per month and account (keyed `month\taccount`) the people's visits the days ask of it; trial links are charged to none. */
export function monthsAsked(days: Map<string, DayDemand>): Map<string, number> {
  const asked = new Map<string, number>();
  for (const [day, want] of days)
    for (const [account, n] of want.accounts) {
      const key = `${day.slice(0, 7)}\t${account}`;
      if (account !== TRIAL_GROUP) asked.set(key, (asked.get(key) ?? 0) + n);
    }
  return asked;
}

/** Keys of monthsAsked as a derived table of two columns, `month` and `account_id` (json-rows.ts). */
const monthAccounts = (dialect: Dialect, keys: string[]) =>
  jsonRows(
    dialect,
    keys.map((key) => key.split('\t')),
    [
      ['month', 'text'],
      ['account_id', 'text'],
    ],
  );

/** Account ids as a derived table of one column, `account_id` (json-rows.ts). */
const accountList = (dialect: Dialect, accounts: string[]) =>
  jsonRows(
    dialect,
    accounts.map((account) => [account]),
    [['account_id', 'text']],
  );

/**
 * Makes the month rows accounts lack (zeros) and, on PostgreSQL, locks them, in one order: by month,
 * then account. All rows are made before any is locked (an inserted row stays locked until the commit),
 * both in that order. A flush does it once for every month and account it may charge, before its days'
 * grants (recording-store.ts): a flush over two days that locked each day's accounts in turn could hold
 * one account and wait for another that a flush of a third day of the month holds, waiting for the first.
 */
export async function lockMonthRows(tx: Tx, dialect: Dialect, days: Map<string, DayDemand>): Promise<void> {
  const keys = [...monthsAsked(days).keys()];
  if (keys.length === 0) return;
  const list = monthAccounts(dialect, keys);
  // "where true": SQLite would read the ON of ON CONFLICT as a join constraint of the SELECT.
  await sql`insert into visit_months (account_id, month, recorded, free_used, last_grant)
    select account_id, month, 0, 0, 0 from ${list} as v where true order by month, account_id
    on conflict (account_id, month) do nothing`.execute(tx);
  const locking = sql`select m.account_id from visit_months m join ${list} as v on m.month = v.month and m.account_id = v.account_id order by m.month, m.account_id`;
  await lockSelected(tx, dialect, locking, 'm');
}

/**
 * Up to `n` visits for each account of `wants`, whose month rows the transaction made and locked
 * (lockMonthRows): one statement takes the visits from the free visits of the month, then accounts
 * short of them take from their packs, oldest first (ADR 0049).
 */
export async function grantAccounts(tx: Tx, dialect: Dialect, month: string, wants: [string, number][], free: number): Promise<Map<string, number>> {
  const asked = wants.filter(([, n]) => n > 0);
  const got = new Map<string, number>();
  if (asked.length === 0) return got;
  const offers = jsonRows(dialect, asked, [
    ['account_id', 'text'],
    ['n', 'bigint'],
  ]);
  const set = fromFreeVisits(sql<number>`v.n`, free);
  const taken = await sql<{ account_id: string; last_grant: number | string }>`update visit_months
    set free_used = ${set.free_used}, last_grant = ${set.last_grant}, recorded = ${set.recorded}
    from ${offers} as v where visit_months.account_id = v.account_id and visit_months.month = ${month}
    returning visit_months.account_id, visit_months.last_grant`.execute(tx);
  const fromFree = new Map(taken.rows.map((row) => [row.account_id, Number(row.last_grant)]));
  // One statement finds the accounts with a pack left (past its allowance, an account has none).
  const short = asked.filter(([account, want]) => fromFree.get(account)! < want).map(([account]) => account);
  const withPacks = short.length > 0 ? await accountsWithPacks(tx, dialect, short) : new Set<string>();
  for (const [account, want] of asked) {
    const own = fromFree.get(account)!;
    if (own === want || !withPacks.has(account)) got.set(account, own);
    else {
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
  // PostgreSQL: a refund (guarded on visits_used = 0) waits for this flush. SQLite's one writer serialises them.
  const packs = await selectForUpdate(
    tx,
    dialect,
    sql<{ id: string; visits: number | string; visits_used: number | string }>`select id, visits, visits_used from capacity_packs
      where account_id = ${accountId} and status = 'active' and visits_used < visits order by created_at, id`,
    'capacity_packs',
  );
  let left = n;
  for (const pack of packs) {
    if (left === 0) break;
    const take = Math.min(left, Number(pack.visits) - Number(pack.visits_used));
    const updated = await tx
      .updateTable('capacity_packs')
      .set({ visits_used: sql<number>`visits_used + ${take}` })
      .where('id', '=', pack.id)
      .where('status', '=', 'active')
      .where(sql<boolean>`visits_used + ${take} <= visits`)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) throw new Error(`capacity pack ${pack.id} changed during a flush, which the next flush retries`);
    left -= take;
  }
  if (left < n) {
    await tx
      .updateTable('visit_months')
      .set({ recorded: sql<number>`recorded + ${n - left}` })
      .where('account_id', '=', accountId)
      .where('month', '=', month)
      .execute();
  }
  return n - left;
}
