import crypto from 'node:crypto';
import { hashSecret } from '../platform/auth/secrets.js';
import { days, type Clock } from '../platform/time.js';
import type { CredentialStore, TokenPurpose } from './credential-store.js';
import type { Mail } from './mailer.js';

/** How long a link in a mail works: a day to verify an address, an hour to reset a password (OWASP). */
export const LINK_LIFETIME_MS: Record<TokenPurpose, number> = { verify: days(1), reset: 3_600_000 };

const PAGES: Record<TokenPurpose, string> = { verify: '/app/verify', reset: '/app/reset' };

/** A one-time link: shown to its recipient only (a mail, or the operator's CLI), stored as a hash. */
export interface AccountLink {
  url: string;
  expiresAt: number;
}

/**
 * The one-time links of verification and reset mails, made here for the website's flows and the
 * admin CLI alike. The token travels in the query of a page of the website, which POSTs it.
 */
export class AccountLinks {
  constructor(private readonly deps: { credentials: CredentialStore; publicUrl: string; now: Clock }) {}

  /** `passwordHash`: the password chosen with this sign-up, which verifying the address makes the account's. */
  verification(accountId: string, passwordHash: string | null = null): Promise<AccountLink> {
    return this.make(accountId, 'verify', passwordHash);
  }

  reset(accountId: string): Promise<AccountLink> {
    return this.make(accountId, 'reset', null);
  }

  page(path: string): string {
    return `${this.deps.publicUrl}${path}`;
  }

  private async make(accountId: string, purpose: TokenPurpose, passwordHash: string | null): Promise<AccountLink> {
    const token = crypto.randomBytes(32).toString('base64url');
    const now = this.deps.now();
    const expiresAt = now + LINK_LIFETIME_MS[purpose];
    await this.deps.credentials.createToken({ tokenHash: hashSecret(token), accountId, purpose, passwordHash, now, expiresAt });
    return { url: `${this.page(PAGES[purpose])}?token=${token}`, expiresAt };
  }
}

export const verificationMail = (to: string, link: AccountLink): Mail => ({
  to,
  subject: 'Confirm your email address',
  text: `Open this link within a day to confirm your address and finish creating your account:\n\n${link.url}\n\nIf you did not sign up, ignore this mail: no account is made without the link.\n`,
});

export const resetMail = (to: string, link: AccountLink): Mail => ({
  to,
  subject: 'Reset your password',
  text: `Open this link within an hour to choose a new password:\n\n${link.url}\n\nIt signs you out everywhere else. If you did not ask for it, ignore this mail: your password stays as it is.\n`,
});

/** Sign-up with an address that has an account already: the owner is told, the requester learns nothing. */
export const existingAccountMail = (to: string, signIn: string, reset: string): Mail => ({
  to,
  subject: 'You already have an account',
  text: `Someone (perhaps you) tried to create an account with this address, which already has one.\n\nSign in: ${signIn}\nForgot your password? ${reset}\n`,
});

/** Tokens in links are what AccountLinks makes: 32 random bytes, base64url. */
export const isLinkToken = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);
