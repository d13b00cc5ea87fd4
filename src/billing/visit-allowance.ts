import { sql, type Kysely } from 'kysely';
import type { Database, Dialect } from '../platform/database/database.js';
import type { DB } from '../platform/database/schema.js';
import { jsonRows } from '../platform/database/json-rows.js';
import { capped, lockSelected, selectForUpdate } from '../platform/database/additive.js';
import type { MonthAsk, Tx, VisitAllowance } from './ports.js';

/**
 * An account's recorded visits, taken in the flush transaction of visit recording: first the free
 * visits of the month (`visit_months`), then its active packs, oldest first (ADR 0049).
 */
export class KyselyVisitAllowance implements VisitAllowance {
  private readonly db: Kysely<DB>;
  private readonly dialect: Dialect;

  constructor(database: Database) {
    this.db = database.db;
    this.dialect = database.dialect;
  }

  /** Month and account pairs as a derived table of two columns, `month` and `account_id` (json-rows.ts). */
  private list(asks: readonly MonthAsk[]) {
    return jsonRows(
      this.dialect,
      asks.map((ask) => [ask.month, ask.accountId]),
      [
        ['month', 'text'],
        ['account_id', 'text'],
      ],
    );
  }

  async withRoom(asks: readonly MonthAsk[], free: number): Promise<Set<string>> {
    if (asks.length === 0) return new Set();
    const { rows } = await sql<{ month: string; account_id: string; free_used: number | string | null; packs: number | string }>`
      select v.month, v.account_id, m.free_used,
        (select coalesce(sum(p.visits - p.visits_used), 0) from capacity_packs p where p.account_id = v.account_id and p.status = 'active') as packs
      from ${this.list(asks)} as v left join visit_months m on m.month = v.month and m.account_id = v.account_id`.execute(this.db);
    // Past its free visits of a month, an account's packs (of any month) must hold the rest.
    const asked = new Map(asks.map((ask) => [`${ask.month}\t${ask.accountId}`, ask.visits]));
    const beyondFree = new Map<string, number>();
    const packs = new Map<string, number>();
    for (const row of rows) {
      const over = Math.max(0, asked.get(`${row.month}\t${row.account_id}`)! - Math.max(0, free - Number(row.free_used ?? 0)));
      beyondFree.set(row.account_id, (beyondFree.get(row.account_id) ?? 0) + over);
      packs.set(row.account_id, Number(row.packs));
    }
    return new Set([...beyondFree].filter(([account, over]) => over <= packs.get(account)!).map(([account]) => account));
  }

  /**
   * All rows are made before any is locked (an inserted row stays locked until the commit), both by
   * month, then account. A flush does it once for every month and account it may charge, before its
   * grants: one that locked each day's accounts in turn could hold one account and wait for another
   * that a flush of a third day of the month holds, waiting for the first.
   */
  async lockMonths(tx: Tx, asks: readonly MonthAsk[]): Promise<void> {
    if (asks.length === 0) return;
    const list = this.list(asks);
    // "where true": SQLite would read the ON of ON CONFLICT as a join constraint of the SELECT.
    await sql`insert into visit_months (account_id, month, recorded, free_used, last_grant)
      select account_id, month, 0, 0, 0 from ${list} as v where true order by month, account_id
      on conflict (account_id, month) do nothing`.execute(tx);
    const locking = sql`select m.account_id from visit_months m join ${list} as v on m.month = v.month and m.account_id = v.account_id order by m.month, m.account_id`;
    await lockSelected(tx, this.dialect, locking, 'm');
  }

  /** One statement takes the visits from the free visits of the month; accounts short of them go on to their packs. */
  async grant(tx: Tx, month: string, wants: readonly [string, number][], free: number): Promise<Map<string, number>> {
    const asked = wants.filter(([, n]) => n > 0);
    const got = new Map<string, number>();
    if (asked.length === 0) return got;
    const offers = jsonRows(this.dialect, asked, [
      ['account_id', 'text'],
      ['n', 'bigint'],
    ]);
    const used = capped('free_used', sql<number>`v.n`, free);
    const taken = await sql<{ account_id: string; last_grant: number | string }>`update visit_months
      set free_used = ${used}, last_grant = ${used} - free_used, recorded = recorded + ${used} - free_used
      from ${offers} as v where visit_months.account_id = v.account_id and visit_months.month = ${month}
      returning visit_months.account_id, visit_months.last_grant`.execute(tx);
    const fromFree = new Map(taken.rows.map((row) => [row.account_id, Number(row.last_grant)]));
    // One statement finds the accounts with a pack left (past its allowance, an account has none).
    const short = asked.filter(([account, want]) => fromFree.get(account)! < want).map(([account]) => account);
    const withPacks = short.length > 0 ? await this.withPacks(tx, short) : new Set<string>();
    for (const [account, want] of asked) {
      const own = fromFree.get(account)!;
      got.set(account, own === want || !withPacks.has(account) ? own : own + (await this.fromPacks(tx, account, month, want - own)));
    }
    return got;
  }

  /** Which of `accounts` have an active pack with visits left (read, not locked: fromPacks locks them). */
  private async withPacks(tx: Tx, accounts: string[]): Promise<Set<string>> {
    const list = jsonRows(
      this.dialect,
      accounts.map((account) => [account]),
      [['account_id', 'text']],
    );
    const { rows } = await sql<{ account_id: string }>`select distinct account_id from capacity_packs
      where account_id in (select account_id from ${list} as v) and status = 'active' and visits_used < visits`.execute(tx);
    return new Set(rows.map((row) => row.account_id));
  }

  /** Up to n visits from the account's active packs, oldest first, counted as recorded in its month's row. */
  private async fromPacks(tx: Tx, accountId: string, month: string, n: number): Promise<number> {
    // PostgreSQL: a refund (guarded on visits_used = 0) waits for this flush. SQLite's one writer serialises them.
    const packs = await selectForUpdate(
      tx,
      this.dialect,
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
    if (left < n)
      await tx
        .updateTable('visit_months')
        .set({ recorded: sql<number>`recorded + ${n - left}` })
        .where('account_id', '=', accountId)
        .where('month', '=', month)
        .execute();
    return n - left;
  }
}
