import type { Kysely } from 'kysely';
import type { DB } from '../platform/database/schema.js';

export type TokenPurpose = 'verify' | 'reset';

export interface NewAccountToken {
  tokenHash: string;
  accountId: string;
  purpose: TokenPurpose;
  /** A verification token carries the password chosen with it (docs/adr/0064-website-sessions.md). */
  passwordHash: string | null;
  now: number;
  expiresAt: number;
}

export interface AccountIdentity {
  id: string;
  email: string;
}

/** What the sign-in rules ask of storage beyond the account service: one-time tokens and passwords. */
export interface CredentialStore {
  createToken(token: NewAccountToken): Promise<void>;
  /** The account an unused, unexpired token of `purpose` belongs to, without using it. */
  peekToken(tokenHash: string, purpose: TokenPurpose, now: number): Promise<AccountIdentity | undefined>;
  /** Uses a verification token: the account is verified (with the token's password, if any). */
  verifyEmail(tokenHash: string, now: number): Promise<AccountIdentity | undefined>;
  /** Uses a reset token: the password changes, the email counts as verified, other reset links die. */
  resetPassword(tokenHash: string, passwordHash: string, now: number): Promise<AccountIdentity | undefined>;
  setPassword(accountId: string, passwordHash: string): Promise<void>;
  /** The account's address and password hash, for a password change. */
  account(accountId: string): Promise<{ email: string; passwordHash: string | null } | undefined>;
  purgeTokens(now: number): Promise<number>;
  /** What became of a one-time token: still usable, used (or retired by a newer one), expired, or unknown (never issued, or purged). */
  tokenState(tokenHash: string, purpose: TokenPurpose, now: number): Promise<TokenState>;
}

export type TokenState = 'valid' | 'used' | 'expired' | 'unknown';

/** One-time tokens are stored as their SHA-256 only; using one is a guarded update, so only one caller wins. */
export class KyselyCredentialStore implements CredentialStore {
  constructor(private readonly db: Kysely<DB>) {}

  /** A new verification link replaces the account's earlier ones: only the newest sign-up's link verifies. */
  async createToken(token: NewAccountToken): Promise<void> {
    if (token.purpose === 'verify') await retire(this.db, token.accountId, 'verify', token.now);
    await this.db
      .insertInto('account_tokens')
      .values({
        token_hash: token.tokenHash,
        account_id: token.accountId,
        purpose: token.purpose,
        password_hash: token.passwordHash,
        created_at: token.now,
        expires_at: token.expiresAt,
        used_at: null,
      })
      .execute();
  }

  async peekToken(tokenHash: string, purpose: TokenPurpose, now: number): Promise<AccountIdentity | undefined> {
    return this.db
      .selectFrom('account_tokens')
      .innerJoin('accounts', 'accounts.id', 'account_tokens.account_id')
      .select(['accounts.id', 'accounts.email'])
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
  }

  async tokenState(tokenHash: string, purpose: TokenPurpose, now: number): Promise<TokenState> {
    const row = await this.db
      .selectFrom('account_tokens')
      .select(['used_at', 'expires_at'])
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
    if (!row) return 'unknown';
    if (row.used_at !== null) return 'used';
    return row.expires_at > now ? 'valid' : 'expired';
  }

  async verifyEmail(tokenHash: string, now: number): Promise<AccountIdentity | undefined> {
    return this.db.transaction().execute(async (tx) => {
      const token = await useToken(tx, tokenHash, 'verify', now);
      if (!token) return undefined;
      await retire(tx, token.account_id, 'verify', now);
      return tx
        .updateTable('accounts')
        .set((eb) => ({
          verified_at: eb.fn.coalesce('verified_at', eb.val(now)),
          password_hash: token.password_hash === null ? eb.ref('password_hash') : eb.val(token.password_hash),
        }))
        .where('id', '=', token.account_id)
        .returning(['id', 'email'])
        .executeTakeFirstOrThrow();
    });
  }

  async resetPassword(tokenHash: string, passwordHash: string, now: number): Promise<AccountIdentity | undefined> {
    return this.db.transaction().execute(async (tx) => {
      const token = await useToken(tx, tokenHash, 'reset', now);
      if (!token) return undefined;
      await retire(tx, token.account_id, 'reset', now);
      return tx
        .updateTable('accounts')
        .set((eb) => ({ password_hash: passwordHash, verified_at: eb.fn.coalesce('verified_at', eb.val(now)) }))
        .where('id', '=', token.account_id)
        .returning(['id', 'email'])
        .executeTakeFirstOrThrow();
    });
  }

  async setPassword(accountId: string, passwordHash: string): Promise<void> {
    await this.db.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', accountId).execute();
  }

  async account(accountId: string): Promise<{ email: string; passwordHash: string | null } | undefined> {
    const row = await this.db.selectFrom('accounts').select(['email', 'password_hash']).where('id', '=', accountId).executeTakeFirst();
    return row && { email: row.email, passwordHash: row.password_hash };
  }

  /** Tokens a day past their expiry go; nothing reads them any more. */
  async purgeTokens(now: number): Promise<number> {
    const result = await this.db
      .deleteFrom('account_tokens')
      .where('expires_at', '<=', now - 86_400_000)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** Marks the account's unused tokens of `purpose` used. */
async function retire(db: Kysely<DB>, accountId: string, purpose: TokenPurpose, now: number): Promise<void> {
  await db
    .updateTable('account_tokens')
    .set({ used_at: now })
    .where('account_id', '=', accountId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

function useToken(tx: Kysely<DB>, tokenHash: string, purpose: TokenPurpose, now: number) {
  return tx
    .updateTable('account_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['account_id', 'password_hash'])
    .executeTakeFirst();
}
