import { AppError } from '../platform/errors.js';
import { DuplicateEmailError, normalEmail, type AccountStore } from './account-service.js';
import { existingAccountMail, isLinkToken, resetMail, verificationMail, type AccountLinks } from './account-links.js';
import { evenly, type AuthLimits } from './auth-limits.js';
import type { AccountIdentity, CredentialStore, TokenState } from './credential-store.js';
import type { Mail, Mailer } from './mailer.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { weakPassword } from './password-strength.js';
import { hashSecret } from '../platform/auth/secrets.js';
import type { Sessions } from './sessions.js';
import type { Clock } from '../platform/time.js';
import type { TwoFactor } from './two-factor.js';

/**
 * The parts of sign-up and reset that differ between an address with an account and one without
 * (a row or two written) finish within this, so the answer takes the same time either way.
 */
const EVEN_MS = 150;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface AuthServiceDeps {
  accountStore: Pick<AccountStore, 'credentialsByEmail' | 'createAccount'>;
  credentials: CredentialStore;
  sessions: Sessions;
  links: AccountLinks;
  limits: AuthLimits;
  mailer: Mailer;
  signup: 'open' | 'closed';
  /** scrypt cost of new hashes and of the decoy an unknown address is checked against (config.ts). */
  passwordHashLogN: number;
  now: Clock;
  /** Mail is sent after the answer; a failure is only logged (the person can ask again). */
  onMailError: (error: unknown) => void;
  twoFactor: Pick<TwoFactor, 'enabled' | 'check'>;
}

/** The session making a request. */
export interface SessionRef {
  accountId: string;
  sessionId: string;
}

/** A new session: the account, and the token that goes in the cookie only. */
export interface Started {
  account: AccountIdentity;
  token: string;
  expiresAt: number;
}

/**
 * Accounts for people (docs/adr/0064-website-sessions.md): sign-up verified by mail, sign-in, password
 * change and reset. Answers never tell whether an address has an account, and take the same time.
 */
export class AuthService {
  constructor(private readonly deps: AuthServiceDeps) {}

  async signUp(input: { email: string; password: string }, network: string): Promise<void> {
    if (this.deps.signup === 'closed') throw new AppError('not_found');
    const email = validEmail(input.email);
    if (weakPassword(input.password, email) !== undefined) throw new AppError('invalid_request');
    await this.deps.limits.check('signup', network, email);
    // Exactly one scrypt whatever the address; the database work that differs is padded after it.
    const passwordHash = await hashPassword(input.password, this.deps.passwordHashLogN);
    await evenly(EVEN_MS, () => this.register(email, passwordHash));
  }

  /** A new account starts with the password; an unverified one gets a link carrying it; a verified one a notice. */
  private async register(email: string, passwordHash: string): Promise<void> {
    const { accountStore, links } = this.deps;
    const existing = await accountStore.credentialsByEmail(email);
    if (existing?.verifiedAt != null) return this.mail(existingAccountMail(email, links.page('/app/signin'), links.page('/app/reset')));
    const account = existing ?? (await accountStore.createAccount({ email, passwordHash, verifiedAt: null, now: this.deps.now() }).catch(raceLost));
    // A sign-up for the same address that won a race has sent its own mail.
    if (account === undefined) return;
    this.mail(verificationMail(email, await links.verification(account.id, existing ? passwordHash : null)));
  }

  async verify(token: string): Promise<Started> {
    const account = isLinkToken(token) ? await this.deps.credentials.verifyEmail(hashSecret(token), this.deps.now()) : undefined;
    if (!account) throw new AppError('invalid_request');
    return this.start(account);
  }

  /**
   * Unknown address, wrong password and unverified account get one answer, after one scrypt each. With
   * two-factor sign-in on, the right password without a code asks for one (nothing else is said), and
   * a wrong code is the same 401; codes are counted apart, per network and per address.
   */
  async signIn(input: { email: string; password: string; code?: string }, network: string): Promise<Started | 'code_required'> {
    const email = normalEmail(input.email);
    await this.deps.limits.check('signin', network, email);
    if (input.code !== undefined) await this.deps.limits.check('code', network, email);
    const account = await this.deps.accountStore.credentialsByEmail(email);
    const matches = await verifyPassword(input.password, account?.passwordHash, this.deps.passwordHashLogN);
    if (!account || !matches || account.verifiedAt === null) throw new AppError('api_key_invalid');
    if (await this.deps.twoFactor.enabled(account.id)) {
      if (input.code === undefined) return 'code_required';
      if (!(await this.deps.twoFactor.check(account.id, input.code))) throw new AppError('api_key_invalid');
    }
    return this.start({ id: account.id, email: account.email });
  }

  /** Needs the current password; every other session of the account ends. */
  async changePassword(session: SessionRef, input: { currentPassword: string; newPassword: string }): Promise<void> {
    const account = await this.deps.credentials.account(session.accountId);
    if (!(await verifyPassword(input.currentPassword, account?.passwordHash, this.deps.passwordHashLogN)) || !account) throw new AppError('api_key_invalid');
    if (weakPassword(input.newPassword, account.email) !== undefined) throw new AppError('invalid_request');
    await this.deps.credentials.setPassword(session.accountId, await hashPassword(input.newPassword, this.deps.passwordHashLogN));
    await this.deps.sessions.revokeAll(session.accountId, session.sessionId);
  }

  async requestReset(input: { email: string }, network: string): Promise<void> {
    const email = normalEmail(input.email);
    await this.deps.limits.check('reset', network, email);
    await evenly(EVEN_MS, async () => {
      const account = EMAIL.test(email) ? await this.deps.accountStore.credentialsByEmail(email) : undefined;
      if (account !== undefined) this.mail(resetMail(email, await this.deps.links.reset(account.id)));
    });
  }

  /** Whether a reset link can still be used, and if not why: the page says so before a password is chosen. */
  async resetState(token: string): Promise<TokenState> {
    if (!isLinkToken(token)) return 'unknown';
    return this.deps.credentials.tokenState(hashSecret(token), 'reset', this.deps.now());
  }

  /** A good token and a strong password: the password changes and every session of the account ends. */
  async confirmReset(input: { token: string; password: string }): Promise<void> {
    const { credentials, sessions } = this.deps;
    const tokenHash = isLinkToken(input.token) ? hashSecret(input.token) : undefined;
    const account = tokenHash && (await credentials.peekToken(tokenHash, 'reset', this.deps.now()));
    if (!tokenHash || !account || weakPassword(input.password, account.email) !== undefined) throw new AppError('invalid_request');
    const reset = await credentials.resetPassword(tokenHash, await hashPassword(input.password, this.deps.passwordHashLogN), this.deps.now());
    if (!reset) throw new AppError('invalid_request');
    await sessions.revokeAll(reset.id);
  }

  /** The account signed in with this cookie token, or undefined (no token, or no live session). */
  async current(token: string | undefined): Promise<{ id: string; email: string } | undefined> {
    const session = token === undefined ? undefined : await this.deps.sessions.resolve(token);
    return session && { id: session.accountId, email: session.email };
  }

  /** Ends the session of this cookie token, if it is one; the route clears the cookie either way. */
  async signOut(token: string | undefined): Promise<void> {
    const session = token === undefined ? undefined : await this.deps.sessions.resolve(token);
    if (session) await this.deps.sessions.revoke(session.sessionId);
  }

  async signOutEverywhere(accountId: string): Promise<void> {
    await this.deps.sessions.revokeAll(accountId);
  }

  private async start(account: AccountIdentity): Promise<Started> {
    const { token, expiresAt } = await this.deps.sessions.start(account.id);
    return { account: { id: account.id, email: account.email }, token, expiresAt };
  }

  private mail(mail: Mail): void {
    this.deps.mailer.send(mail).catch(this.deps.onMailError);
  }
}

const raceLost = (error: unknown): undefined => {
  if (error instanceof DuplicateEmailError) return undefined;
  throw error;
};

function validEmail(raw: string): string {
  const email = normalEmail(raw);
  if (!EMAIL.test(email) || email.length > 254) throw new AppError('invalid_request');
  return email;
}
