import { KyselyAccountStore } from '../accounts/account-store.js';
import { AccountService, keyScopes } from '../accounts/account-service.js';
import { PackService } from '../billing/billing-service.js';
import { KyselyPackStore } from '../billing/pack-store.js';
import { CliError, required, requiredId, type Command, type Context } from './command.js';
import { safetyCommands } from './safety-commands.js';
import { accountLinkCommands } from '../accounts/account-commands.js';
import { lookupCommands } from './lookup-commands.js';
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
    help: {
      usage: '--email <email> [--password <password>]',
      summary: 'Make a verified account; with --password its owner can sign in to the website at once.',
      prints: '{"id", "email"}',
    },
    // The operator vouches for the address, so the account is verified from the start.
    run: (values, context) => accounts(context).createAccount({ email: required(values, 'email'), password: values.password, verified: true }),
  },
  'keys create': {
    options: { account: { type: 'string' }, scopes: { type: 'string' }, budget: { type: 'string' }, name: { type: 'string' } },
    help: {
      usage: '--account <id> --scopes <scope,scope,…> [--budget <credits per month>] [--name <label>]',
      summary:
        'Make an API key for an account. Scopes: links:read, links:write, analytics:read, qr:read, credits:spend. Without --budget the key spends up to the account balance.',
      prints: '{"id", "key", "scopes", "budget", "name"}: the key is shown only here',
    },
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
    help: {
      usage: '--id <key id>',
      summary: 'Revoke an API key, at once.',
      prints: '{"id", "revoked": true}',
    },
    run: (values, context) => accounts(context).revokeKey(requiredId(values, 'id')),
  },
  'packs list': {
    options: { account: { type: 'string' } },
    help: {
      usage: '--account <id>',
      summary: "An account's capacity packs.",
      prints: '{"account", "packs": [{"id", "status", "credits", "visits", "visitsUsed", …}]}',
    },
    async run(values, context) {
      const accountId = await accounts(context).existingAccount(requiredId(values, 'account'));
      return { account: accountId, packs: await packs(context).list(accountId) };
    },
  },
  'packs refund': {
    options: { id: { type: 'string' } },
    help: {
      usage: '--id <pack id>',
      summary: 'Return an unused capacity pack for its credits.',
      prints: '{"id", "status": "refunded", "credits", "account", "purchasedBalance"}',
    },
    async run(values, context) {
      const { pack, purchasedBalance } = await packs(context).refund(requiredId(values, 'id'));
      return { id: pack.id, status: pack.status, credits: pack.credits, account: pack.accountId, purchasedBalance };
    },
  },
  ...accountLinkCommands,
  ...safetyCommands,
  ...lookupCommands,
  backup: backupCommand,
};

function packs({ database, now }: Context): PackService {
  return new PackService({ packs: new KyselyPackStore(database.db), now: () => now });
}
