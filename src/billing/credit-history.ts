import type { Kysely } from 'kysely';
import type { DB } from '../platform/database/schema.js';

/** Why purchased credits moved, as people read it; the ledger's own kinds stay internal. */
const REASONS: Record<string, 'grant' | 'link' | 'pack' | 'refund'> = { grant: 'grant', link_spend: 'link', pack_spend: 'pack', refund: 'refund' };

/** How many ledger rows the website shows: the newest. */
export const CREDIT_HISTORY_LENGTH = 100;

export interface CreditHistory {
  /** Available to spend: the balance less what requests in flight hold. */
  purchasedBalance: number;
  reserved: number;
  history: Array<{ at: number; credits: number; reason: 'grant' | 'link' | 'pack' | 'refund' }>;
}

/** The account's credit ledger for the website's billing page, newest first. */
export class KyselyCreditHistory {
  constructor(private readonly db: Kysely<DB>) {}

  async of(accountId: string): Promise<CreditHistory> {
    const [account, rows] = await Promise.all([
      this.db.selectFrom('accounts').select(['purchased_balance', 'reserved_credits']).where('id', '=', accountId).executeTakeFirstOrThrow(),
      this.db
        .selectFrom('credit_ledger')
        .select(['created_at', 'amount', 'kind'])
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(CREDIT_HISTORY_LENGTH)
        .execute(),
    ]);
    const reserved = Number(account.reserved_credits);
    return {
      purchasedBalance: Number(account.purchased_balance) - reserved,
      reserved,
      history: rows.flatMap((row) => {
        const reason = REASONS[row.kind];
        return reason === undefined ? [] : [{ at: Number(row.created_at), credits: Number(row.amount), reason }];
      }),
    };
  }
}
