import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import { PUBLIC, WEBSITE } from '../accounts/website-access.js';
import { EmptyBody } from '../accounts/auth-schemas.js';
import type { LinkRecord } from '../links/ports.js';
import type { LinkResponse } from '../links/link-schemas.js';
import type { Principal } from '../platform/auth/principal.js';
import { errorResponses } from '../platform/http/openapi-responses.js';
import { networkOf } from '../platform/network.js';
import type { OperatorService } from './operator-service.js';
import type { Reports } from './reports.js';
import {
  AuditList,
  DomainBlocked,
  DomainBody,
  DomainList,
  FindAccountQuery,
  FindLinkQuery,
  FoundAccount,
  FoundLink,
  GrantBody,
  Granted,
  LinkStatusChanged,
  ReportBody,
  ReportList,
  ReportReceived,
  ReportResolved,
  ReportsQuery,
  TrialsSuspended,
} from './safety-schemas.js';

export interface SafetyRoutesOptions {
  reports: Reports;
  operators: OperatorService;
  render: (link: LinkRecord) => LinkResponse;
}

/** The console is for operators alone: every refusal, to anyone else, is 404 (docs/adr/0080). */
const OPERATORS = { auth: { scope: 'links:read', sessionOnly: true, hidden: true }, website: true } as const;
const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
const HIDDEN = errorResponses({ not_found: 'Anyone but an operator signed in on the website: the console does not exist for them.' });

const accountOf = (principal: Principal) => (principal.kind === 'session' ? principal.accountId : undefined);

/** Reports from anyone; the operator console's endpoints (website-only, `x-website-only`). */
export const safetyRoutes: FastifyPluginAsyncTypebox<SafetyRoutesOptions> = async (app, { reports, operators, render }) => {
  app.post(
    '/reports',
    {
      config: PUBLIC,
      schema: {
        ...WEBSITE('reportLink', 'Report a short link that points somewhere harmful (anyone; a few a minute per network)'),
        body: ReportBody,
        response: {
          200: ReportReceived,
          ...errorResponses({
            not_found: 'The URL names no link of this service.',
            rate_limited: 'Too many reports from this network in a minute. `Retry-After` says when to try again.',
          }),
        },
      },
    },
    async (request) => {
      const report = await reports.report(request.body, networkOf(request.ip));
      return { id: report.id, status: report.status as 'open' };
    },
  );

  // Every console operation: the operator acting, or 404 for anyone else.
  const operator = (principal: Principal) => operators.requireOperator(accountOf(principal));
  const console = (operationId: string, summary: string, answer: TSchema) => ({
    ...WEBSITE(operationId, `Operator console: ${summary}`),
    response: { 200: answer, ...HIDDEN },
  });

  app.get(
    '/admin/reports',
    { config: OPERATORS, schema: { ...console('listReports', 'reports, oldest open first', ReportList), querystring: ReportsQuery } },
    async (request) => {
      await operator(request.principal);
      const list = await operators.reports(request.query.status ?? 'open');
      const links = await Promise.all(list.map((report) => operators.linkOf(report.linkId)));
      return { reports: list.map((report, i) => ({ ...report, link: links[i] ? render(links[i]) : null })) };
    },
  );

  app.post(
    '/admin/reports/:id/suspend',
    {
      config: OPERATORS,
      schema: { ...console('suspendReportedLink', 'suspend the reported link and close its reports', ReportResolved), params: IdParams, body: EmptyBody },
    },
    async (request) => {
      const result = await operators.suspendReported(await operator(request.principal), request.params.id);
      return { report: result.report, status: 'suspended' as const };
    },
  );

  app.post(
    '/admin/reports/:id/dismiss',
    { config: OPERATORS, schema: { ...console('dismissReport', 'close a report without acting', ReportResolved), params: IdParams, body: EmptyBody } },
    async (request) => operators.dismiss(await operator(request.principal), request.params.id),
  );

  app.get(
    '/admin/links',
    { config: OPERATORS, schema: { ...console('findLink', 'a link by its short URL, QR URL or slug', FoundLink), querystring: FindLinkQuery } },
    async (request) => {
      await operator(request.principal);
      const found = await operators.findLink(request.query.url);
      return { ...found, link: render(found.link), reports: found.reports.map(({ id, reason, createdAt }) => ({ id, reason, createdAt })) };
    },
  );

  app.post(
    '/admin/links/:id/suspend',
    { config: OPERATORS, schema: { ...console('suspendLink', 'suspend a link', LinkStatusChanged), params: IdParams, body: EmptyBody } },
    async (request) => operators.suspend(await operator(request.principal), request.params.id),
  );

  app.post(
    '/admin/links/:id/restore',
    { config: OPERATORS, schema: { ...console('restoreLink', 'restore a suspended link', LinkStatusChanged), params: IdParams, body: EmptyBody } },
    async (request) => operators.restore(await operator(request.principal), request.params.id),
  );

  app.post(
    '/admin/links/:id/suspend-trial-day',
    {
      config: OPERATORS,
      schema: {
        ...console('suspendTrialDay', 'suspend every trial link made by the same network on the same UTC day as this one', TrialsSuspended),
        params: IdParams,
        body: EmptyBody,
      },
    },
    async (request) => operators.suspendTrialDay(await operator(request.principal), request.params.id),
  );

  app.get(
    '/admin/accounts',
    {
      config: OPERATORS,
      schema: { ...console('findAccount', 'an account by email: its links, keys and credits', FoundAccount), querystring: FindAccountQuery },
    },
    async (request) => {
      await operator(request.principal);
      const found = await operators.findAccount(request.query.email);
      return { ...found, links: found.links.map(render) };
    },
  );

  app.post(
    '/admin/accounts/:id/credits',
    { config: OPERATORS, schema: { ...console('grantCredits', 'grant purchased credits to an account', Granted), params: IdParams, body: GrantBody } },
    async (request) => operators.grantCredits(await operator(request.principal), request.params.id, request.body.credits),
  );

  app.get('/admin/blocklist', { config: OPERATORS, schema: console('listBlockedDomains', 'the blocked destination domains', DomainList) }, async (request) => {
    await operator(request.principal);
    return operators.blocked();
  });

  app.post(
    '/admin/blocklist',
    {
      config: OPERATORS,
      schema: { ...console('blockDomain', 'block a destination domain and its subdomains; suspends the links into it', DomainBlocked), body: DomainBody },
    },
    async (request) => operators.block(await operator(request.principal), request.body.domain),
  );

  app.get('/admin/audit', { config: OPERATORS, schema: console('listAudit', 'the newest operator actions', AuditList) }, async (request) => {
    await operator(request.principal);
    return { entries: await operators.audit() };
  });
};
