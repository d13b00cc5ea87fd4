import type { RateLimiter } from '../limits/redis-rate-limiter.js';
import type { LinkRecord } from '../links/ports.js';
import { slugOfReference } from '../links/link-reference.js';
import { AppError } from '../platform/errors.js';
import { networkHash } from '../platform/network.js';
import type { Clock } from '../platform/time.js';
import type { KyselyReportStore, ReportRecord } from './report-store.js';

export interface ReportsDeps {
  store: KyselyReportStore;
  links: { bySlug(slug: string): Promise<LinkRecord | undefined> };
  limiter: RateLimiter;
  /** Reports per minute from one network. */
  perNetworkPerMinute: number;
  edgeLocation: string;
  networkSecret: string;
  publicUrl: string;
  /** The operators' addresses, asked at each report: every operator is told. */
  operatorEmails(): Promise<string[]>;
  mail(mail: { to: string; subject: string; text: string }): void;
  now: Clock;
}

/**
 * Anyone may report a short link with a reason (CONTRACT.md, `/report`): counted per network (its
 * HMAC, as every limit here), stored with the network's HMAC only, and mailed to every operator.
 * A URL that names none of this service's links is 404 not_found, so a mistyped report is noticed.
 */
export class Reports {
  constructor(private readonly deps: ReportsDeps) {}

  async report(input: { url: string; reason: string }, network: string): Promise<ReportRecord> {
    const { deps } = this;
    const now = deps.now();
    const net = networkHash(deps.networkSecret, network);
    const allowed = await deps.limiter.check(`rl:${deps.edgeLocation}:report:net:${net}`, deps.perNetworkPerMinute, now);
    if (!allowed.allowed) throw new AppError('rate_limited', Math.ceil(allowed.retryAfterMs / 1000));
    const slug = slugOfReference(input.url);
    const link = slug === undefined ? undefined : await deps.links.bySlug(slug);
    if (!link) throw new AppError('not_found');
    const report = await deps.store.create({ linkId: link.id, url: input.url.trim(), reason: input.reason.trim(), network: net, now });
    const console = `${deps.publicUrl}/app/admin`;
    for (const to of await deps.operatorEmails()) {
      deps.mail({
        to,
        subject: `Link reported: /s/${link.slug}`,
        text: `Someone reported ${deps.publicUrl}/s/${link.slug}, which points to ${link.target}.\n\nWhat is wrong, in their words:\n${report.reason}\n\nThe reports queue: ${console}\n`,
      });
    }
    return report;
  }
}
