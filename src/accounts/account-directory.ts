import type { Kysely } from 'kysely';
import type { DB } from '../platform/database/schema.js';
import { containsIgnoringCase } from '../platform/database/like.js';
import { canonicalUuid } from '../platform/uuids.js';

/** An account as the operator lists it: never its password hash, keys or sessions. */
export interface AccountEntry {
  id: string;
  email: string;
  verified: boolean;
  createdAt: number;
  purchasedBalance: number;
  /** Links the account owns, whatever their status. */
  links: number;
}

/** The operator's list of accounts (the admin CLI's `accounts list`). */
export class KyselyAccountDirectory {
  constructor(private readonly db: Kysely<DB>) {}

  /** Every account, newest first; with `search`, those whose address contains it (ignoring case) or whose id it is. */
  async list(search?: string): Promise<AccountEntry[]> {
    let query = this.db.selectFrom('accounts').select((eb) => [
      'id',
      'email',
      'verified_at',
      'created_at',
      'purchased_balance',
      eb
        .selectFrom('links')
        .select((links) => links.fn.countAll().as('n'))
        .whereRef('links.account_id', '=', 'accounts.id')
        .as('links'),
    ]);
    if (search !== undefined && search !== '') {
      const text = search.trim();
      query = query.where((eb) => eb.or([containsIgnoringCase('email', text), eb('id', '=', canonicalUuid(text))]));
    }
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    return rows.map((row) => ({
      id: row.id,
      email: row.email,
      verified: row.verified_at !== null,
      createdAt: Number(row.created_at),
      purchasedBalance: Number(row.purchased_balance),
      links: Number(row.links ?? 0),
    }));
  }
}
