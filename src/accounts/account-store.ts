import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { KeyRecord, KeyStore } from '../links/ports.js';
import { isScope, type Scope } from '../platform/auth/principal.js';
import type { DB } from '../platform/database/schema.js';
import { changeBalance } from '../billing/credit-store.js';
import { isUniqueViolation } from '../platform/database/sql-errors.js';

export class DuplicateEmailError extends Error {}

/** Accounts, keys and granted credits: what the operator manages through the admin CLI. */
export class KyselyAccountStore implements KeyStore {
  constructor(private readonly db: Kysely<DB>) {}

  async createAccount(email: string, now: number) {
    const id = crypto.randomUUID();
    try {
      await this.db.insertInto('accounts').values({ id, email, purchased_balance: 0, reserved_credits: 0, created_at: now }).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateEmailError(`an account with email ${email} exists`);
      throw error;
    }
    return { id, email };
  }

  async accountExists(id: string): Promise<boolean> {
    return (await this.db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  async createKey(key: { accountId: string; keyHash: string; scopes: Scope[]; budget: number | null; name: string | null; now: number }) {
    const id = crypto.randomUUID();
    await this.db
      .insertInto('api_keys')
      .values({
        id,
        account_id: key.accountId,
        name: key.name,
        key_hash: key.keyHash,
        scopes: key.scopes.join(','),
        budget: key.budget,
        created_at: key.now,
        revoked_at: null,
      })
      .execute();
    return id;
  }

  /** Returns false when no such key exists. Revoking twice keeps the first revocation time. */
  async revokeKey(id: string, now: number): Promise<boolean> {
    const found = await this.db.selectFrom('api_keys').select('id').where('id', '=', id).executeTakeFirst();
    if (!found) return false;
    await this.db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
    return true;
  }

  async activeKeyByHash(hash: string): Promise<KeyRecord | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .select(['id', 'account_id', 'key_hash', 'scopes', 'budget'])
      .where('key_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      keyHash: row.key_hash,
      scopes: row.scopes.split(',').filter(isScope),
      budget: row.budget,
    };
  }

  /** A grant is a ledger row and a balance change in one transaction; returns the new balance. */
  async grantCredits(accountId: string, credits: number, now: number): Promise<number> {
    return this.db.transaction().execute((tx) => changeBalance(tx, { accountId, amount: credits, kind: 'grant', reference: null, now }));
  }
}
