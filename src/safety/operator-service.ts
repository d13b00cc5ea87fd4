import type { AccountService, KeySummary } from '../accounts/account-service.js';
import { normalEmail } from '../accounts/account-service.js';
import type { LinkRecord, LinkStatus } from '../links/ports.js';
import type { ModerationService } from '../links/moderation-service.js';
import { slugOfReference } from '../links/link-reference.js';
import { AppError, RuleError } from '../platform/errors.js';
import { DAY_MS, type Clock } from '../platform/time.js';
import type { AuditAction, KyselyAuditLog } from './audit-log.js';
import { blockableDomain, type KyselyBlocklist } from './blocklist.js';
import type { KyselyOperators, OperatorAccount } from './operators.js';
import type { KyselyReportStore, ReportRecord, ReportStatus } from './report-store.js';

export interface OperatorDeps {
  operators: KyselyOperators;
  reports: KyselyReportStore;
  blocklist: KyselyBlocklist;
  audit: KyselyAuditLog;
  moderation: ModerationService;
  accounts: Pick<AccountService, 'grantCredits' | 'listKeys'>;
  links: {
    byId(id: string): Promise<LinkRecord | undefined>;
    bySlug(slug: string): Promise<LinkRecord | undefined>;
    list(accountId: string, offset: number, limit: number, search: undefined): Promise<LinkRecord[]>;
  };
  /** Visits of the link's last days, newest last, for "Find link". */
  recentVisits?: (link: LinkRecord) => Promise<Array<{ day: string; visits: number }>>;
  now: Clock;
}

/** Who acts: an operator signed in on the website (their email), or the command line. */
export type Actor = string;
export const CLI: Actor = 'cli';

/** How many of an account's links "Find account" shows: the newest. */
const ACCOUNT_LINKS = 50;

/**
 * The operator's actions (CONTRACT.md, the operator console and the CLI), each kept in the audit log
 * after it succeeded: suspend and restore a link, close reports, grant credits, the blocklist (adding a
 * domain suspends the links into it), and a network's trial links of a day at once.
 */
export class OperatorService {
  constructor(private readonly deps: OperatorDeps) {}

  /** The console exists only for operators: everyone else, and every API key, gets 404. */
  async requireOperator(accountId: string | undefined): Promise<Actor> {
    const account = accountId === undefined ? undefined : await this.deps.operators.byId(accountId);
    if (!account?.operator) throw new AppError('not_found');
    return account.email;
  }

  async makeOperator(actor: Actor, email: string): Promise<{ id: string; email: string; operator: true }> {
    const account = await this.deps.operators.makeOperator(normalEmail(email));
    if (!account) throw new RuleError('not_found', `no account with email ${email}`);
    await this.audited(actor, 'account.make-operator', account.id, { email: account.email });
    return { ...account, operator: true };
  }

  linkOf(id: string): Promise<LinkRecord | undefined> {
    return this.deps.links.byId(id);
  }

  reports(status: ReportStatus): Promise<ReportRecord[]> {
    return this.deps.reports.list(status);
  }

  /** Suspends the reported link and closes every open report of it. */
  async suspendReported(actor: Actor, reportId: string): Promise<{ report: string; link: string; status: LinkStatus }> {
    const report = await this.openReport(reportId);
    const { status } = await this.suspend(actor, report.linkId, { report: report.id });
    await this.deps.reports.resolve({ linkId: report.linkId }, 'suspended', this.deps.now());
    return { report: report.id, link: report.linkId, status };
  }

  async dismiss(actor: Actor, reportId: string): Promise<{ report: string; status: 'dismissed' }> {
    const report = await this.openReport(reportId);
    await this.deps.reports.resolve({ id: report.id }, 'dismissed', this.deps.now());
    await this.audited(actor, 'report.dismiss', report.id, { link: report.linkId });
    return { report: report.id, status: 'dismissed' };
  }

  async suspend(actor: Actor, linkId: string, details: Record<string, unknown> = {}): Promise<{ id: string; status: LinkStatus }> {
    const result = await this.deps.moderation.suspend(linkId);
    await this.audited(actor, 'link.suspend', linkId, details);
    return result;
  }

  async restore(actor: Actor, linkId: string): Promise<{ id: string; status: LinkStatus }> {
    const result = await this.deps.moderation.restore(linkId);
    await this.audited(actor, 'link.restore', linkId, {});
    return result;
  }

  async grantCredits(actor: Actor, accountId: string, credits: number): Promise<{ account: string; purchasedBalance: number }> {
    const result = await this.deps.accounts.grantCredits(accountId, credits);
    await this.audited(actor, 'credits.grant', accountId, { credits, purchasedBalance: result.purchasedBalance });
    return result;
  }

  /** Adds the domain and suspends every active or paused link into it or its subdomains. */
  async block(actor: Actor, raw: string): Promise<{ domain: string; blocked: true; suspended: number }> {
    const domain = blockableDomain(raw);
    await this.deps.blocklist.add(domain, this.deps.now());
    const suspended = await this.suspendEach(await this.deps.blocklist.linksInto(domain));
    await this.audited(actor, 'blocklist.add', domain, { suspended });
    return { domain, blocked: true, suspended };
  }

  async unblock(actor: Actor, raw: string): Promise<{ domain: string; blocked: false }> {
    const domain = blockableDomain(raw);
    await this.deps.blocklist.remove(domain);
    await this.audited(actor, 'blocklist.remove', domain, {});
    return { domain, blocked: false };
  }

  async blocked(): Promise<{ domains: string[] }> {
    return { domains: await this.deps.blocklist.list() };
  }

  /** Every trial link made from the same network on the same UTC day as this one. */
  async suspendTrialDay(actor: Actor, linkId: string): Promise<{ link: string; suspended: number }> {
    const origin = await this.deps.operators.trialNetworkOf(linkId);
    if (!origin) throw new RuleError('not_found', `no trial link with id ${linkId}`);
    const dayStart = Math.floor(origin.createdAt / DAY_MS) * DAY_MS;
    const suspended = await this.suspendEach(await this.deps.operators.trialLinksOf(origin.network, dayStart, dayStart + DAY_MS));
    await this.audited(actor, 'trials.suspend', linkId, { suspended, day: new Date(dayStart).toISOString().slice(0, 10) });
    return { link: linkId, suspended };
  }

  /** A link by its short URL, QR URL or slug: the link, its owner, its open reports and recent visits. */
  async findLink(url: string) {
    const slug = slugOfReference(url);
    const link = slug === undefined ? undefined : await this.deps.links.bySlug(slug);
    if (!link) throw new RuleError('not_found', `no link at ${url}`);
    const owner = link.accountId === null ? null : await this.deps.operators.byId(link.accountId);
    const [reports, recentVisits] = await Promise.all([
      this.deps.reports.list('open').then((open) => open.filter((report) => report.linkId === link.id)),
      this.deps.recentVisits?.(link) ?? Promise.resolve([]),
    ]);
    return { link, account: owner ? { id: owner.id, email: owner.email } : null, reports, recentVisits };
  }

  /** An account by email: itself, its newest links, its keys and its credits. */
  async findAccount(email: string): Promise<{ account: OperatorAccount; links: LinkRecord[]; keys: KeySummary[] }> {
    const account = await this.deps.operators.byEmail(normalEmail(email));
    if (!account) throw new RuleError('not_found', `no account with email ${email}`);
    const [links, keys] = await Promise.all([this.deps.links.list(account.id, 0, ACCOUNT_LINKS, undefined), this.deps.accounts.listKeys(account.id)]);
    return { account, links, keys };
  }

  audit() {
    return this.deps.audit.recent();
  }

  private async openReport(id: string): Promise<ReportRecord> {
    const report = await this.deps.reports.byId(id);
    if (!report) throw new AppError('not_found');
    if (report.status !== 'open') throw new AppError('request_conflict');
    return report;
  }

  /** Suspends each link that is not suspended yet; returns how many it suspended. */
  private async suspendEach(ids: string[]): Promise<number> {
    let suspended = 0;
    for (const id of ids) {
      const before = await this.deps.links.byId(id);
      if (before?.status !== 'active' && before?.status !== 'paused') continue;
      await this.deps.moderation.suspend(id).then(
        () => suspended++,
        // Changed meanwhile (restored, suspended by another operator): nothing to do.
        (error: unknown) => {
          if (!(error instanceof AppError)) throw error;
        },
      );
    }
    return suspended;
  }

  private audited(actor: Actor, action: AuditAction, subject: string, details: Record<string, unknown>): Promise<void> {
    return this.deps.audit.record({ at: this.deps.now(), actor, action, subject, details });
  }
}
