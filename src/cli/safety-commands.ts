import { AccountService } from '../accounts/account-service.js';
import { KyselyAccountStore } from '../accounts/account-store.js';
import { KyselyLinkStore } from '../links/link-store.js';
import { ModerationService } from '../links/moderation-service.js';
import { KyselyModerationStore } from '../links/moderation-store.js';
import { KyselyAuditLog } from '../safety/audit-log.js';
import { KyselyBlocklist } from '../safety/blocklist.js';
import { CLI, OperatorService } from '../safety/operator-service.js';
import { KyselyOperators } from '../safety/operators.js';
import { KyselyReportStore } from '../safety/report-store.js';
import { CliError, required, requiredId, type Command, type Context } from './command.js';

/** The operator's actions from the command line: the console's, recorded in the same audit log (actor `cli`). */
function operators({ database, config, now }: Context): OperatorService {
  const { db } = database;
  const clock = () => now;
  return new OperatorService({
    operators: new KyselyOperators(db),
    reports: new KyselyReportStore(db),
    blocklist: new KyselyBlocklist(db),
    audit: new KyselyAuditLog(db),
    moderation: new ModerationService({ store: new KyselyModerationStore(db), now: clock }),
    accounts: new AccountService({ accounts: new KyselyAccountStore(db), now: clock, passwordHashLogN: config.accounts.passwordHashLogN }),
    links: new KyselyLinkStore(db),
    now: clock,
  });
}

const positiveInteger = (raw: string, name: string): number => {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) throw new CliError(`--${name} must be an integer ≥ 1`);
  return value;
};

export const safetyCommands: Record<string, Command> = {
  'links suspend': {
    options: { id: { type: 'string' } },
    help: {
      usage: '--id <link id>',
      summary: 'Suspend a link: it stops redirecting within REDIRECT_CACHE_TTL_MS, and its owner cannot edit it. Audited.',
      prints: '{"id", "status": "suspended"}',
    },
    run: (values, context) => operators(context).suspend(CLI, requiredId(values, 'id')),
  },
  'links restore': {
    options: { id: { type: 'string' } },
    help: { usage: '--id <link id>', summary: 'Restore a suspended link to the status it had before (active or paused). Audited.', prints: '{"id", "status"}' },
    run: (values, context) => operators(context).restore(CLI, requiredId(values, 'id')),
  },
  'credits grant': {
    options: { account: { type: 'string' }, credits: { type: 'string' } },
    help: { usage: '--account <id> --credits <n>', summary: 'Add purchased credits to an account. Audited.', prints: '{"account", "purchasedBalance"}' },
    run: (values, context) => operators(context).grantCredits(CLI, requiredId(values, 'account'), positiveInteger(required(values, 'credits'), 'credits')),
  },
  'accounts make-operator': {
    options: { email: { type: 'string' } },
    help: {
      usage: '--email <email>',
      summary: 'Let the account open the operator console at /app/admin. Audited.',
      prints: '{"id", "email", "operator": true}',
    },
    run: (values, context) => operators(context).makeOperator(CLI, required(values, 'email')),
  },
  'blocklist add': {
    options: { domain: { type: 'string' } },
    help: {
      usage: '--domain <domain>',
      summary: 'Refuse links into the domain and its subdomains, and suspend the links into them now. Audited.',
      prints: '{"domain", "blocked": true, "suspended"}',
    },
    run: (values, context) => operators(context).block(CLI, required(values, 'domain')),
  },
  'blocklist remove': {
    options: { domain: { type: 'string' } },
    help: {
      usage: '--domain <domain>',
      summary: 'Allow links into the domain again (suspended links stay suspended). Audited.',
      prints: '{"domain", "blocked": false}',
    },
    run: (values, context) => operators(context).unblock(CLI, required(values, 'domain')),
  },
  'blocklist list': {
    options: {},
    help: { usage: '', summary: 'The blocked domains.', prints: '{"domains": [ … ]}' },
    run: (_values, context) => operators(context).blocked(),
  },
};
