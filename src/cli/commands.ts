import { isScope, type Scope } from '../platform/auth/principal.js';
import { hashSecret, newApiKey } from '../platform/auth/secrets.js';
import { DuplicateEmailError, KyselyAccountStore } from '../accounts/account-store.js';
import { KyselyPackStore, UnrefundablePackError } from '../billing/pack-store.js';
import { CliError, required, requiredId, type Command } from './command.js';
import { linkCommands } from './link-commands.js';

const nonNegativeInteger = (raw: string, name: string, min = 0): number => {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min) throw new CliError(`--${name} must be an integer ≥ ${min}`);
  return value;
};

async function existingAccount(store: KyselyAccountStore, id: string): Promise<string> {
  if (!(await store.accountExists(id))) throw new CliError(`no account with id ${id}`);
  return id;
}

export const commands: Record<string, Command> = {
  'accounts create': {
    options: { email: { type: 'string' } },
    async run(values, { database, now }) {
      const email = required(values, 'email').trim().toLowerCase();
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) throw new CliError(`not an email address: ${email}`);
      try {
        return await new KyselyAccountStore(database.db).createAccount(email, now);
      } catch (error) {
        if (error instanceof DuplicateEmailError) throw new CliError(error.message);
        throw error;
      }
    },
  },
  'keys create': {
    options: { account: { type: 'string' }, scopes: { type: 'string' }, budget: { type: 'string' }, name: { type: 'string' } },
    async run(values, { database, now }) {
      const store = new KyselyAccountStore(database.db);
      const accountId = await existingAccount(store, requiredId(values, 'account'));
      const scopes = [...new Set(required(values, 'scopes').split(',').map((s) => s.trim()).filter(Boolean))];
      const unknown = scopes.filter((s) => !isScope(s));
      if (scopes.length === 0 || unknown.length > 0) throw new CliError(`unknown scope(s): ${unknown.join(', ') || '(none given)'}`);
      const budget = values.budget === undefined ? null : nonNegativeInteger(values.budget, 'budget');
      const name = values.name ?? null;
      const key = newApiKey();
      const id = await store.createKey({ accountId, keyHash: hashSecret(key), scopes: scopes as Scope[], budget, name, now });
      return { id, key, scopes, budget, name };
    },
  },
  'keys revoke': {
    options: { id: { type: 'string' } },
    async run(values, { database, now }) {
      const id = requiredId(values, 'id');
      if (!(await new KyselyAccountStore(database.db).revokeKey(id, now))) throw new CliError(`no key with id ${id}`);
      return { id, revoked: true };
    },
  },
  'credits grant': {
    options: { account: { type: 'string' }, credits: { type: 'string' } },
    async run(values, { database, now }) {
      const store = new KyselyAccountStore(database.db);
      const accountId = await existingAccount(store, requiredId(values, 'account'));
      const credits = nonNegativeInteger(required(values, 'credits'), 'credits', 1);
      const purchasedBalance = await store.grantCredits(accountId, credits, now);
      return { account: accountId, purchasedBalance };
    },
  },
  'packs list': {
    options: { account: { type: 'string' } },
    async run(values, { database }) {
      const accountId = await existingAccount(new KyselyAccountStore(database.db), requiredId(values, 'account'));
      const packs = await new KyselyPackStore(database.db).list(accountId);
      return { account: accountId, packs };
    },
  },
  'packs refund': {
    options: { id: { type: 'string' } },
    async run(values, { database, now }) {
      try {
        const { pack, purchasedBalance } = await new KyselyPackStore(database.db).refund(requiredId(values, 'id'), now);
        return { id: pack.id, status: pack.status, credits: pack.credits, account: pack.accountId, purchasedBalance };
      } catch (error) {
        if (error instanceof UnrefundablePackError) throw new CliError(error.message);
        throw error;
      }
    },
  },
  ...linkCommands,
};
