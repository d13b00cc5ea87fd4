import { CliError, required, type Command, type Context } from '../cli/command.js';
import { AccountLinks, type AccountLink } from './account-links.js';
import { normalEmail } from './account-service.js';
import { KyselyAccountStore } from './account-store.js';
import { KyselyCredentialStore } from './credential-store.js';

/**
 * One-time links the operator passes on when the service sends no mail (or a mail went astray): the
 * same links, made by the same code, as the website's verification and reset mails.
 */
async function link(values: Record<string, string | undefined>, context: Context, kind: 'verify' | 'reset'): Promise<{ email: string } & AccountLink> {
  const email = normalEmail(required(values, 'email'));
  const account = await new KyselyAccountStore(context.database.db).credentialsByEmail(email);
  if (!account) throw new CliError(`no account with email ${email}`);
  if (kind === 'verify' && account.verifiedAt !== null)
    throw new CliError(`${email} is verified already (accounts reset-link gives a link to choose a password)`);
  const links = new AccountLinks({ credentials: new KyselyCredentialStore(context.database.db), publicUrl: context.config.publicUrl, now: () => context.now });
  const made = kind === 'verify' ? await links.verification(account.id) : await links.reset(account.id);
  return { email, ...made };
}

export const accountLinkCommands: Record<string, Command> = {
  'accounts verify-link': {
    options: { email: { type: 'string' } },
    help: {
      usage: '--email <email>',
      summary: 'A one-time link (valid a day) that verifies a website sign-up and signs its owner in, for when no mail arrives.',
      prints: '{"email", "url", "expiresAt"}',
    },
    run: (values, context) => link(values, context, 'verify'),
  },
  'accounts reset-link': {
    options: { email: { type: 'string' } },
    help: {
      usage: '--email <email>',
      summary: "A one-time link (valid an hour) to choose a new password; using it ends the account's sessions.",
      prints: '{"email", "url", "expiresAt"}',
    },
    run: (values, context) => link(values, context, 'reset'),
  },
};
