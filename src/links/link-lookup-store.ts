import type { Kysely } from 'kysely';
import type { DB } from '../platform/database/schema.js';
import { toLinkRecord } from './link-store.js';
import type { LinkRecord } from './ports.js';

/** A link with the account that owns it (null: a trial link, which has no account). */
export interface OwnedLink {
  link: LinkRecord;
  account: { id: string; email: string } | null;
}

/**
 * The operator's look-ups of links (the admin CLI's `links find` and `links list`): any account's
 * links, whatever their status, which no API caller may read.
 */
export class KyselyLinkLookup {
  constructor(private readonly db: Kysely<DB>) {}

  async bySlug(slug: string): Promise<OwnedLink | undefined> {
    const row = await this.db
      .selectFrom('links')
      .leftJoin('accounts', 'accounts.id', 'links.account_id')
      .selectAll('links')
      .select(['accounts.email as owner_email'])
      .where('links.slug', '=', slug)
      .executeTakeFirst();
    if (!row) return undefined;
    const { owner_email: email, ...link } = row;
    return { link: toLinkRecord(link), account: link.account_id !== null && email !== null ? { id: link.account_id, email } : null };
  }
}
