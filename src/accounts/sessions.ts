import crypto from 'node:crypto';
import { hashSecret } from '../platform/auth/secrets.js';
import { days, type Clock } from '../platform/time.js';
import type { SessionStore } from './session-store.js';

/** A session unused this long ends (idle expiry). */
export const SESSION_IDLE_MS = days(7);
/** A session ends this long after sign-in, however busy (absolute expiry). */
export const SESSION_LIFETIME_MS = days(30);
/** last_seen_at is kept to the minute: one write a minute per busy session, not one per request. */
const SEEN_RESOLUTION_MS = 60_000;

/** A cookie token: 32 random bytes, base64url (43 characters). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface SignedIn {
  sessionId: string;
  accountId: string;
  email: string;
}

/**
 * Browser sessions (docs/adr/0064-website-sessions.md): a random token the browser keeps in a cookie,
 * stored only as its SHA-256, ending after a week unused or a month after sign-in, whichever is first,
 * or when revoked. Only a verified account has sessions.
 */
export class Sessions {
  constructor(private readonly deps: { store: SessionStore; now: Clock; randomBytes?: (size: number) => Buffer }) {}

  /** Starts a session; returns the token for the cookie (nowhere else) and when it ends at the latest. */
  async start(accountId: string): Promise<{ token: string; expiresAt: number }> {
    const token = (this.deps.randomBytes ?? crypto.randomBytes)(32).toString('base64url');
    const now = this.deps.now();
    const expiresAt = now + SESSION_LIFETIME_MS;
    await this.deps.store.create({ id: crypto.randomUUID(), tokenHash: hashSecret(token), accountId, now, expiresAt });
    return { token, expiresAt };
  }

  /** The signed-in account of a cookie token, or undefined when the token is unknown, expired or revoked. */
  async resolve(token: string): Promise<SignedIn | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const session = await this.deps.store.byTokenHash(hashSecret(token));
    if (!session || !session.verified) return undefined;
    const now = this.deps.now();
    if (now >= session.expiresAt || now >= session.lastSeenAt + SESSION_IDLE_MS) {
      await this.deps.store.revoke(session.id);
      return undefined;
    }
    if (now - session.lastSeenAt >= SEEN_RESOLUTION_MS) await this.deps.store.touch(session.id, now, now - SEEN_RESOLUTION_MS);
    return { sessionId: session.id, accountId: session.accountId, email: session.email };
  }

  revoke(sessionId: string): Promise<void> {
    return this.deps.store.revoke(sessionId);
  }

  /** Ends every session of the account, but `exceptId` when given (the one changing the password). */
  revokeAll(accountId: string, exceptId?: string): Promise<number> {
    return this.deps.store.revokeAll(accountId, exceptId);
  }

  purge(): Promise<number> {
    return this.deps.store.purge(this.deps.now(), SESSION_IDLE_MS);
  }
}
