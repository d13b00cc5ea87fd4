import type { Kysely } from 'kysely';
import type { UsageStore } from '../domain/ports.js';
import type { DB } from './schema.js';

/** Counts for the usage endpoint and quotes, read-only. */
export class KyselyUsageStore implements UsageStore {
  constructor(private readonly db: Kysely<DB>) {}

  async linksCreatedSince(accountId: string, since: number): Promise<number> {
    const row = await this.db
      .selectFrom('links')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async totalLinks(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('links')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
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
}
