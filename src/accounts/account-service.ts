import { RuleError } from '../platform/errors.js';
import { isScope, type Scope } from '../platform/auth/principal.js';
import { hashSecret, newApiKey } from '../platform/auth/secrets.js';
import { utcMonth, type Clock } from '../platform/time.js';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.js';

/** Thrown by a store when the email belongs to another account already. */
export class DuplicateEmailError extends Error {}

export interface NewAccount {
  email: string;
  passwordHash: string | null;
  verifiedAt: number | null;
  now: number;
}

export interface NewKey {
  accountId: string;
  keyHash: string;
  prefix: string;
  last4: string;
  scopes: Scope[];
  budget: number | null;
  name: string | null;
  now: number;
}

/** A key as its owner sees it in a list: never the secret, nor its hash. */
export interface KeySummary {
  id: string;
  name: string | null;
  prefix: string | null;
  last4: string | null;
  scopes: Scope[];
  budget: number | null;
  spentThisMonth: number;
  createdAt: number;
  lastUsedAt: number | null;
}

/** An account as signing in needs it. */
export interface AccountCredentials {
  id: string;
  email: string;
  passwordHash: string | null;
  verifiedAt: number | null;
}

/** What the accounts service needs from storage (src/accounts/account-store.ts). */
export interface AccountStore {
  createAccount(account: NewAccount): Promise<{ id: string; email: string }>;
  accountExists(id: string): Promise<boolean>;
  credentialsByEmail(email: string): Promise<AccountCredentials | undefined>;
  createKey(key: NewKey): Promise<string>;
  revokeKey(id: string, now: number, accountId?: string): Promise<boolean>;
  listKeys(accountId: string, month: string): Promise<KeySummary[]>;
  grantCredits(accountId: string, credits: number, now: number): Promise<number>;
}

export interface KeyOptions {
  scopes: readonly string[];
  /** Credits per UTC month; null or absent for no limit beyond the account balance. */
  budget?: number | null;
  name?: string | null;
}

/** A new key: the secret appears here once and is stored only as its SHA-256. */
export interface CreatedKey {
  id: string;
  key: string;
  scopes: Scope[];
  budget: number | null;
  name: string | null;
  prefix: string;
  last4: string;
  createdAt: number;
}

/** How much of a key people see to recognise it: `shl_live_` and three characters of the secret. */
export const KEY_PREFIX_LENGTH = 12;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Emails are kept trimmed and in lower case, so one address is one account whatever its spelling. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

/** A key's scopes: each named once, at least one, all known. */
export function keyScopes(names: readonly string[]): Scope[] {
  const scopes = [...new Set(names.map((s) => s.trim()).filter(Boolean))];
  const unknown = scopes.filter((s) => !isScope(s));
  if (scopes.length === 0 || unknown.length > 0) throw new RuleError('invalid_request', `unknown scope(s): ${unknown.join(', ') || '(none given)'}`);
  return scopes as Scope[];
}

/** Accounts and their keys and credits: the rules the admin CLI and the website's routes share. */
export class AccountService {
  /** `passwordHashLogN` is the scrypt cost of new hashes and of the decoy an unknown email is checked against. */
  constructor(private readonly deps: { accounts: AccountStore; now: Clock; passwordHashLogN: number }) {}

  /** A verified account (the operator vouches for it) may sign in at once when it has a password. */
  async createAccount(input: { email: string; password?: string; verified: boolean }): Promise<{ id: string; email: string }> {
    const email = normalEmail(input.email);
    if (!EMAIL.test(email) || email.length > 254) throw new RuleError('invalid_request', `not an email address: ${email}`);
    const problem = input.password === undefined ? undefined : passwordProblem(input.password);
    if (problem !== undefined) throw new RuleError('invalid_request', problem);
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password, this.deps.passwordHashLogN);
    const now = this.deps.now();
    try {
      return await this.deps.accounts.createAccount({ email, passwordHash, verifiedAt: input.verified ? now : null, now });
    } catch (error) {
      if (error instanceof DuplicateEmailError) throw new RuleError('request_conflict', error.message);
      throw error;
    }
  }

  async createKey(accountId: string, options: KeyOptions): Promise<CreatedKey> {
    await this.existingAccount(accountId);
    const scopes = keyScopes(options.scopes);
    const budget = options.budget ?? null;
    if (budget !== null && (!Number.isSafeInteger(budget) || budget < 0)) throw new RuleError('invalid_request', 'a budget is an integer ≥ 0');
    const name = options.name ?? null;
    const key = newApiKey();
    const [prefix, last4, createdAt] = [key.slice(0, KEY_PREFIX_LENGTH), key.slice(-4), this.deps.now()];
    const id = await this.deps.accounts.createKey({ accountId, keyHash: hashSecret(key), prefix, last4, scopes, budget, name, now: createdAt });
    return { id, key, scopes, budget, name, prefix, last4, createdAt };
  }

  /** With an account, only that account's key may be revoked (the website); without, any (the operator). */
  async revokeKey(id: string, accountId?: string): Promise<{ id: string; revoked: true }> {
    if (!(await this.deps.accounts.revokeKey(id, this.deps.now(), accountId))) throw new RuleError('not_found', `no key with id ${id}`);
    return { id, revoked: true };
  }

  /** The account's unrevoked keys, newest first; spentThisMonth counts the current UTC month. */
  async listKeys(accountId: string): Promise<KeySummary[]> {
    return this.deps.accounts.listKeys(accountId, utcMonth(this.deps.now()));
  }

  async grantCredits(accountId: string, credits: number): Promise<{ account: string; purchasedBalance: number }> {
    await this.existingAccount(accountId);
    if (!Number.isSafeInteger(credits) || credits < 1) throw new RuleError('invalid_request', 'a grant is an integer ≥ 1');
    const purchasedBalance = await this.deps.accounts.grantCredits(accountId, credits, this.deps.now());
    return { account: accountId, purchasedBalance };
  }

  /**
   * The account whose email and password these are, or undefined; as slow for an unknown email as for
   * a wrong password. Whether it is verified is for the caller to judge.
   */
  async checkPassword(email: string, password: string): Promise<{ id: string; email: string; verified: boolean } | undefined> {
    const account = await this.deps.accounts.credentialsByEmail(normalEmail(email));
    if (!(await verifyPassword(password, account?.passwordHash, this.deps.passwordHashLogN))) return undefined;
    return account && { id: account.id, email: account.email, verified: account.verifiedAt !== null };
  }

  async existingAccount(id: string): Promise<string> {
    if (!(await this.deps.accounts.accountExists(id))) throw new RuleError('not_found', `no account with id ${id}`);
    return id;
  }
}
