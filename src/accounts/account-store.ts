import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import { isScope, type Scope } from '../platform/auth/principal.js';
import type { ActiveKey, KeyLookup } from '../platform/auth/api-key-resolver.js';
import type { DB } from '../platform/database/schema.js';
import { changeBalance } from '../billing/credit-store.js';
import { isUniqueViolation } from '../platform/database/sql-errors.js';
import { DuplicateEmailError, type AccountCredentials, type KeySummary, type NewAccount, type NewKey } from './account-service.js';

const scopesOf = (text: string): Scope[] => text.split(',').filter(isScope);

/** Accounts, their keys and granted credits: the SQL behind the accounts service and key lookup. */
export class KyselyAccountStore implements KeyLookup {
  constructor(private readonly db: Kysely<DB>) {}

  async createAccount(account: NewAccount): Promise<{ id: string; email: string }> {
    const id = crypto.randomUUID();
    const { email, passwordHash, verifiedAt, now } = account;
    try {
      await this.db
        .insertInto('accounts')
        .values({ id, email, purchased_balance: 0, reserved_credits: 0, created_at: now, password_hash: passwordHash, verified_at: verifiedAt })
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateEmailError(`an account with email ${email} exists`);
      throw error;
    }
    return { id, email };
  }

  async accountExists(id: string): Promise<boolean> {
    return (await this.db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  async credentialsByEmail(email: string): Promise<AccountCredentials | undefined> {
    const row = await this.db.selectFrom('accounts').select(['id', 'email', 'password_hash', 'verified_at']).where('email', '=', email).executeTakeFirst();
    return row && { id: row.id, email: row.email, passwordHash: row.password_hash, verifiedAt: row.verified_at };
  }

  async createKey(key: NewKey): Promise<string> {
    const id = crypto.randomUUID();
    await this.db
      .insertInto('api_keys')
      .values({
        id,
        account_id: key.accountId,
        name: key.name,
        key_hash: key.keyHash,
        prefix: key.prefix,
        last4: key.last4,
        scopes: key.scopes.join(','),
        budget: key.budget,
        created_at: key.now,
        revoked_at: null,
      })
      .execute();
    return id;
  }

  /**
   * Returns false when no such key exists (or, with an account, none of that account's). Revoking
   * twice keeps the first revocation time.
   */
  async revokeKey(id: string, now: number, accountId?: string): Promise<boolean> {
    let found = this.db.selectFrom('api_keys').select('id').where('id', '=', id);
    if (accountId !== undefined) found = found.where('account_id', '=', accountId);
    if (!(await found.executeTakeFirst())) return false;
    await this.db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
    return true;
  }

  /** The account's unrevoked keys, newest first, with what each spent in the month. */
  async listKeys(accountId: string, month: string): Promise<KeySummary[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .leftJoin('key_months', (join) => join.onRef('key_months.key_id', '=', 'api_keys.id').on('key_months.month', '=', month))
      .select(['id', 'name', 'prefix', 'last4', 'scopes', 'budget', 'created_at', 'last_used_at', 'key_months.spent'])
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      prefix: row.prefix,
      last4: row.last4,
      scopes: scopesOf(row.scopes),
      budget: row.budget === null ? null : Number(row.budget),
      spentThisMonth: Number(row.spent ?? 0),
      createdAt: Number(row.created_at),
      lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    }));
  }

  async activeKeyByHash(hash: string): Promise<ActiveKey | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .select(['id', 'account_id', 'key_hash', 'scopes', 'budget', 'last_used_at'])
      .where('key_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      keyHash: row.key_hash,
      scopes: scopesOf(row.scopes),
      budget: row.budget,
      lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    };
  }

  /** Moves last_used_at forward only: of two instances writing out of order, the later time stays. */
  async markKeyUsed(id: string, at: number): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }

  /** A grant is a ledger row and a balance change in one transaction; returns the new balance. */
  async grantCredits(accountId: string, credits: number, now: number): Promise<number> {
    return this.db.transaction().execute((tx) => changeBalance(tx, { accountId, amount: credits, kind: 'grant', reference: null, now }));
  }
}
