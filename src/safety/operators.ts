import type { Kysely } from 'kysely';
import type { DB } from '../platform/database/schema.js';

export interface OperatorAccount {
  id: string;
  email: string;
  verified: boolean;
  operator: boolean;
  createdAt: number;
  purchasedBalance: number;
  reservedCredits: number;
}

/** Which accounts are operators, and accounts as the console shows them (the `operator` column of accounts). */
export class KyselyOperators {
  constructor(private readonly db: Kysely<DB>) {}

  async isOperator(accountId: string): Promise<boolean> {
    const row = await this.db.selectFrom('accounts').select('operator').where('id', '=', accountId).executeTakeFirst();
    return row?.operator === 1;
  }

  /** Makes the account of this address an operator; undefined when no account has it. */
  async makeOperator(email: string): Promise<{ id: string; email: string } | undefined> {
    return this.db.updateTable('accounts').set({ operator: 1 }).where('email', '=', email).returning(['id', 'email']).executeTakeFirst();
  }

  async operatorEmails(): Promise<string[]> {
    const rows = await this.db.selectFrom('accounts').select('email').where('operator', '=', 1).where('verified_at', 'is not', null).execute();
    return rows.map((row) => row.email);
  }

  async byEmail(email: string): Promise<OperatorAccount | undefined> {
    const row = await this.accounts().where('email', '=', email).executeTakeFirst();
    return row && toAccount(row);
  }

  async byId(id: string): Promise<OperatorAccount | undefined> {
    const row = await this.accounts().where('id', '=', id).executeTakeFirst();
    return row && toAccount(row);
  }

  /** Trial links made from the network (its HMAC) in [from, to), still active or paused. */
  async trialLinksOf(network: string, from: number, to: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('links')
      .select('id')
      .where('trial_network', '=', network)
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .where('status', 'in', ['active', 'paused'])
      .execute();
    return rows.map((row) => row.id);
  }

  async trialNetworkOf(linkId: string): Promise<{ network: string; createdAt: number } | undefined> {
    const row = await this.db.selectFrom('links').select(['trial_network', 'created_at']).where('id', '=', linkId).executeTakeFirst();
    return row?.trial_network ? { network: row.trial_network, createdAt: row.created_at } : undefined;
  }

  private accounts() {
    return this.db.selectFrom('accounts').select(['id', 'email', 'verified_at', 'operator', 'created_at', 'purchased_balance', 'reserved_credits']);
  }
}

function toAccount(row: {
  id: string;
  email: string;
  verified_at: number | null;
  operator: number;
  created_at: number;
  purchased_balance: number;
  reserved_credits: number;
}): OperatorAccount {
  return {
    id: row.id,
    email: row.email,
    verified: row.verified_at !== null,
    operator: row.operator === 1,
    createdAt: row.created_at,
    purchasedBalance: row.purchased_balance,
    reservedCredits: row.reserved_credits,
  };
}
