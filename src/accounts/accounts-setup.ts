import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../platform/config.js';
import type { Database } from '../platform/database/database.js';
import type { Clock } from '../platform/time.js';
import type { RateLimiter } from '../limits/redis-rate-limiter.js';
import type { PackService } from '../billing/billing-service.js';
import type { KyselyCreditHistory } from '../billing/credit-history.js';
import { AccountLinks } from './account-links.js';
import { AccountService } from './account-service.js';
import { KyselyAccountStore } from './account-store.js';
import { AuthLimits } from './auth-limits.js';
import { authRoutes } from './auth-routes.js';
import { AuthService } from './auth-service.js';
import { KyselyCredentialStore } from './credential-store.js';
import { createMailer } from './mailer.js';
import { KyselySessionStore } from './session-store.js';
import { Sessions } from './sessions.js';
import { websiteRoutes } from './website-routes.js';
import { TwoFactor } from './two-factor.js';
import { KyselyTwoFactorStore } from './two-factor-store.js';
import { twoFactorRoutes } from './two-factor-routes.js';

export interface AccountsDeps {
  config: Config;
  database: Database;
  limiter: RateLimiter;
  networkSecret: string;
  now: Clock;
  log: FastifyBaseLogger;
  /** Billing's packs and credit history, which the website's account pages show. */
  billing: { packs: PackService; history: KyselyCreditHistory };
}

/**
 * Accounts for people: sessions (for the session principal) and the website's routes. Expired sessions
 * and tokens are swept once an hour.
 */
export function setUpAccounts(app: FastifyInstance, deps: AccountsDeps) {
  const { config, database, now, log } = deps;
  const settings = config.accounts;
  const sessions = new Sessions({ store: new KyselySessionStore(database.db), now });
  const credentials = new KyselyCredentialStore(database.db);
  const accountStore = new KyselyAccountStore(database.db);
  const accounts = new AccountService({ accounts: accountStore, now, passwordHashLogN: settings.passwordHashLogN });
  const mailer = createMailer({ smtpUrl: settings.smtpUrl, mailDir: settings.mailDir, from: `no-reply@${new URL(config.publicUrl).hostname}` }, log);
  const limits = new AuthLimits({ limiter: deps.limiter, settings: settings.authLimits, edgeLocation: config.edgeLocation, secret: deps.networkSecret, now });
  const twoFactor = new TwoFactor({ store: new KyselyTwoFactorStore(database.db), limits, issuer: new URL(config.publicUrl).hostname, now });
  const auth = new AuthService({
    accountStore,
    credentials,
    sessions,
    links: new AccountLinks({ credentials, publicUrl: config.publicUrl, now }),
    limits,
    twoFactor,
    mailer,
    signup: settings.signup,
    passwordHashLogN: settings.passwordHashLogN,
    now,
    onMailError: (error) => log.warn({ err: error }, 'a mail could not be sent'),
  });
  const sweep = setInterval(() => {
    sessions.purge().catch(() => {});
    credentials.purgeTokens(now()).catch(() => {});
  }, 3_600_000);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    mailer.close();
  });
  const routes = async (api: FastifyInstance) => {
    await api.register(authRoutes, { auth, secureCookie: config.publicUrl.startsWith('https:') });
    await api.register(twoFactorRoutes, { twoFactor });
    await api.register(websiteRoutes, {
      accounts,
      packs: deps.billing.packs,
      credits: deps.billing.history,
      site: { signup: settings.signup, creditsHelp: settings.creditsHelp },
    });
  };
  return { sessions, accounts: accountStore, service: accounts, mailer, routes };
}
