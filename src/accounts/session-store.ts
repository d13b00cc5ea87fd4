import type { Kysely } from 'kysely';
import type { DB } from '../platform/database/schema.js';

/** A session as the rules see it, with what they need of its account. */
export interface SessionRecord {
  id: string;
  accountId: string;
  email: string;
  verified: boolean;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

export interface NewSession {
  id: string;
  tokenHash: string;
  accountId: string;
  now: number;
  expiresAt: number;
}

/** What the session rules ask of storage (src/accounts/sessions.ts). */
export interface SessionStore {
  create(session: NewSession): Promise<void>;
  byTokenHash(hash: string): Promise<SessionRecord | undefined>;
  /** Moves last_seen_at forward to `now` if it is older than `before` (one write a minute, not one a request). */
  touch(id: string, now: number, before: number): Promise<void>;
  revoke(id: string): Promise<void>;
  /** Every session of the account but `exceptId`; returns how many ended. */
  revokeAll(accountId: string, exceptId?: string): Promise<number>;
  /** Sessions past either expiry: nothing can use them any more. */
  purge(now: number, idleMs: number): Promise<number>;
}

/** Sessions by the SHA-256 of their cookie token; the token itself is never stored. */
export class KyselySessionStore implements SessionStore {
  constructor(private readonly db: Kysely<DB>) {}

  async create(session: NewSession): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id: session.id,
        token_hash: session.tokenHash,
        account_id: session.accountId,
        created_at: session.now,
        last_seen_at: session.now,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  async byTokenHash(hash: string): Promise<SessionRecord | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
      .select([
        'sessions.id',
        'sessions.account_id',
        'accounts.email',
        'accounts.verified_at',
        'sessions.created_at',
        'sessions.last_seen_at',
        'sessions.expires_at',
      ])
      .where('sessions.token_hash', '=', hash)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      email: row.email,
      verified: row.verified_at !== null,
      createdAt: Number(row.created_at),
      lastSeenAt: Number(row.last_seen_at),
      expiresAt: Number(row.expires_at),
    };
  }

  async touch(id: string, now: number, before: number): Promise<void> {
    await this.db.updateTable('sessions').set({ last_seen_at: now }).where('id', '=', id).where('last_seen_at', '<', before).execute();
  }

  async revoke(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', id).execute();
  }

  async revokeAll(accountId: string, exceptId?: string): Promise<number> {
    let query = this.db.deleteFrom('sessions').where('account_id', '=', accountId);
    if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async purge(now: number, idleMs: number): Promise<number> {
    const result = await this.db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', now - idleMs)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
