import { sql, type Kysely } from 'kysely';
import type { UsageStore } from './ports.js';
import type { DB } from '../platform/database/schema.js';

/** Counts for the usage endpoint and quotes, read-only. */
export class KyselyUsageStore implements UsageStore {
  constructor(private readonly db: Kysely<DB>) {}

  /** The account's links in one pass: all of them, and those created at or after `since`. */
  async linkCounts(accountId: string, since: number): Promise<{ total: number; since: number }> {
    const row = await this.db
      .selectFrom('links')
      .select((eb) => [eb.fn.countAll<number>().as('total'), sql<number>`coalesce(sum(case when created_at >= ${since} then 1 else 0 end), 0)`.as('since')])
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return { total: Number(row.total), since: Number(row.since) };
  }

  async freeLinksUsed(accountId: string, month: string): Promise<number> {
    const row = await this.db
      .selectFrom('account_months')
      .select('links_created')
      .where('account_id', '=', accountId)
      .where('month', '=', month)
      .executeTakeFirst();
    return row?.links_created ?? 0;
  }

  async visitMonth(accountId: string, month: string): Promise<{ recorded: number; freeUsed: number; packsLeft: number }> {
    const [row, packs] = await Promise.all([
      this.db.selectFrom('visit_months').select(['recorded', 'free_used']).where('account_id', '=', accountId).where('month', '=', month).executeTakeFirst(),
      this.db
        .selectFrom('capacity_packs')
        .select(sql<number>`coalesce(sum(visits - visits_used), 0)`.as('left'))
        .where('account_id', '=', accountId)
        .where('status', '=', 'active')
        .executeTakeFirstOrThrow(),
    ]);
    return { recorded: Number(row?.recorded ?? 0), freeUsed: Number(row?.free_used ?? 0), packsLeft: Number(packs.left) };
  }
}
