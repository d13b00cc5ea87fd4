import { KyselyAccountDirectory } from '../accounts/account-directory.js';
import { KyselyAccountStore } from '../accounts/account-store.js';
import { slugOfReference } from '../links/link-reference.js';
import { KyselyLinkLookup } from '../links/link-lookup-store.js';
import { KyselyLinkStore } from '../links/link-store.js';
import { toLinkResponse } from '../links/link-response.js';
import { CliError, required, requiredId, type Command } from './command.js';

/**
 * The operator's look-ups: accounts by address, an account's links, and the link an abuse report
 * names (docs/adr/0078-operator-look-ups.md). Links print as the API renders them, with this
 * deployment's PUBLIC_URL.
 */
export const lookupCommands: Record<string, Command> = {
  'accounts list': {
    options: { search: { type: 'string' } },
    help: {
      usage: '[--search <text>]',
      summary: 'Every account, newest first; with --search, those whose email address contains the text (ignoring case) or whose id it is.',
      prints: '{"accounts": [{"id", "email", "verified", "createdAt", "purchasedBalance", "links"}, …]}',
    },
    run: async (values, { database }) => ({ accounts: await new KyselyAccountDirectory(database.db).list(values.search) }),
  },
  'links list': {
    options: { account: { type: 'string' } },
    help: {
      usage: '--account <id>',
      summary: 'Every link of an account, whatever its status, newest first.',
      prints: '{"links": [<link as the API renders it>, …]}',
    },
    async run(values, { database, config }) {
      const accountId = requiredId(values, 'account');
      if (!(await new KyselyAccountStore(database.db).accountExists(accountId))) throw new CliError(`no account with id ${accountId}`);
      const links = await new KyselyLinkStore(database.db).all(accountId);
      return { links: links.map((link) => toLinkResponse(link, config.publicUrl)) };
    },
  },
  'links find': {
    options: { url: { type: 'string' } },
    help: {
      usage: '--url <short URL, QR URL or slug>',
      summary:
        'The link a short URL (…/s/<slug>), a QR URL (…/q/<slug>) or a bare slug names, and its account: paste what a reporter sent, on any host, with or without a trailing slash or query.',
      prints: '{"link": <link as the API renders it>, "account": {"id", "email"} (null for a trial link)}',
    },
    async run(values, { database, config }) {
      const reference = required(values, 'url');
      const slug = slugOfReference(reference);
      if (slug === undefined) throw new CliError(`not a short URL, QR URL or slug: ${JSON.stringify(reference)}`);
      const found = await new KyselyLinkLookup(database.db).bySlug(slug);
      if (!found) throw new CliError(`no link with slug ${slug}`);
      return { link: toLinkResponse(found.link, config.publicUrl), account: found.account };
    },
  },
};
