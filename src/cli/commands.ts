import { KyselyAccountStore } from '../accounts/account-store.js';
import { AccountService, keyScopes } from '../accounts/account-service.js';
import { PackService } from '../billing/billing-service.js';
import { KyselyPackStore } from '../billing/pack-store.js';
import { CliError, required, requiredId, type Command, type Context } from './command.js';
import { linkCommands } from './link-commands.js';
import { accountLinkCommands } from '../accounts/account-commands.js';
import { backupCommand } from './backup-command.js';

const nonNegativeInteger = (raw: string, name: string, min = 0): number => {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min) throw new CliError(`--${name} must be an integer ≥ ${min}`);
  return value;
};

// The server's PASSWORD_HASH_LOG_N, so a password set here costs what one set on the website costs.
const accounts = ({ database, config, now }: Context) =>
  new AccountService({ accounts: new KyselyAccountStore(database.db), now: () => now, passwordHashLogN: config.accounts.passwordHashLogN });

export const commands: Record<string, Command> = {
  'accounts create': {
    options: { email: { type: 'string' }, password: { type: 'string' } },
    // The operator vouches for the address, so the account is verified from the start.
    run: (values, context) => accounts(context).createAccount({ email: required(values, 'email'), password: values.password, verified: true }),
  },
  'keys create': {
    options: { account: { type: 'string' }, scopes: { type: 'string' }, budget: { type: 'string' }, name: { type: 'string' } },
    async run(values, context) {
      const service = accounts(context);
      const accountId = await service.existingAccount(requiredId(values, 'account'));
      // The same order of checks as ever: account, scopes, then budget.
      const scopes = keyScopes(required(values, 'scopes').split(','));
      const budget = values.budget === undefined ? null : nonNegativeInteger(values.budget, 'budget');
      const { id, key, name } = await service.createKey(accountId, { scopes, budget, name: values.name ?? null });
      return { id, key, scopes, budget, name };
    },
  },
  'keys revoke': {
    options: { id: { type: 'string' } },
    run: (values, context) => accounts(context).revokeKey(requiredId(values, 'id')),
  },
  'credits grant': {
    options: { account: { type: 'string' }, credits: { type: 'string' } },
    async run(values, context) {
      const service = accounts(context);
      const accountId = await service.existingAccount(requiredId(values, 'account'));
      return service.grantCredits(accountId, nonNegativeInteger(required(values, 'credits'), 'credits', 1));
    },
  },
  'packs list': {
    options: { account: { type: 'string' } },
    async run(values, context) {
      const accountId = await accounts(context).existingAccount(requiredId(values, 'account'));
      return { account: accountId, packs: await packs(context).list(accountId) };
    },
  },
  'packs refund': {
    options: { id: { type: 'string' } },
    async run(values, context) {
      const { pack, purchasedBalance } = await packs(context).refund(requiredId(values, 'id'));
      return { id: pack.id, status: pack.status, credits: pack.credits, account: pack.accountId, purchasedBalance };
    },
  },
  ...accountLinkCommands,
  ...linkCommands,
  backup: backupCommand,
};

function packs({ database, now }: Context): PackService {
  return new PackService({ packs: new KyselyPackStore(database.db), now: () => now });
}
