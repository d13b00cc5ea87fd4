import { Type } from '@sinclair/typebox';
import { KeySummary } from '../accounts/website-schemas.js';
import { StringEnum } from '../platform/http/common-schemas.js';

const strict = { additionalProperties: false } as const;
/** A link as the API renders it: the shared component. */
const Link = Type.Ref('Link');
const NO_NUL = '^[^\\u0000]*$';
const UnixMs = Type.Integer({ minimum: 0, description: 'Unix milliseconds' });

export const ReportBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, pattern: NO_NUL, description: 'The short link, its QR URL, or its slug' }),
    reason: Type.String({ minLength: 1, maxLength: 1000, pattern: NO_NUL, description: 'What is wrong with it, in the reporter’s words' }),
  },
  strict,
);

const ReportStatus = StringEnum(['open', 'suspended', 'dismissed'] as const);

export const ReportReceived = Type.Object({ id: Type.String({ format: 'uuid' }), status: Type.Literal('open') }, strict);

export const Report = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    linkId: Type.String({ format: 'uuid' }),
    url: Type.String(),
    reason: Type.String(),
    status: ReportStatus,
    createdAt: UnixMs,
    resolvedAt: Type.Union([UnixMs, Type.Null()]),
    link: Type.Union([Link, Type.Null()]),
  },
  strict,
);

export const ReportList = Type.Object({ reports: Type.Array(Report) }, strict);
export const ReportsQuery = Type.Object({ status: Type.Optional(ReportStatus) }, strict);

const Owner = Type.Union([Type.Object({ id: Type.String({ format: 'uuid' }), email: Type.String() }, strict), Type.Null()]);

export const FoundLink = Type.Object(
  {
    link: Link,
    account: Owner,
    reports: Type.Array(Type.Object({ id: Type.String({ format: 'uuid' }), reason: Type.String(), createdAt: UnixMs }, strict)),
    recentVisits: Type.Array(Type.Object({ day: Type.String(), visits: Type.Integer({ minimum: 0 }) }, strict)),
  },
  strict,
);

export const FindLinkQuery = Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048, pattern: NO_NUL }) }, strict);
export const FindAccountQuery = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254, pattern: NO_NUL }) }, strict);

export const FoundAccount = Type.Object(
  {
    account: Type.Object(
      {
        id: Type.String({ format: 'uuid' }),
        email: Type.String(),
        verified: Type.Boolean(),
        operator: Type.Boolean(),
        createdAt: UnixMs,
        purchasedBalance: Type.Integer(),
        reservedCredits: Type.Integer(),
      },
      strict,
    ),
    links: Type.Array(Link),
    keys: Type.Array(KeySummary),
  },
  strict,
);

export const GrantBody = Type.Object({ credits: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }) }, strict);
export const Granted = Type.Object({ account: Type.String({ format: 'uuid' }), purchasedBalance: Type.Integer() }, strict);
export const LinkStatusChanged = Type.Object(
  { id: Type.String({ format: 'uuid' }), status: StringEnum(['active', 'paused', 'suspended', 'deleted'] as const) },
  strict,
);
export const ReportResolved = Type.Object({ report: Type.String({ format: 'uuid' }), status: StringEnum(['suspended', 'dismissed'] as const) }, strict);
export const TrialsSuspended = Type.Object({ link: Type.String({ format: 'uuid' }), suspended: Type.Integer({ minimum: 0 }) }, strict);

export const AuditList = Type.Object(
  {
    entries: Type.Array(
      Type.Object(
        {
          at: UnixMs,
          actor: Type.String({ description: 'The operator’s email, or `cli`' }),
          action: Type.String(),
          subject: Type.String(),
          details: Type.Record(Type.String(), Type.Unknown()),
        },
        strict,
      ),
    ),
  },
  strict,
);

export const DomainBody = Type.Object({ domain: Type.String({ minLength: 1, maxLength: 253, pattern: NO_NUL }) }, strict);
export const DomainList = Type.Object({ domains: Type.Array(Type.String()) }, strict);
export const DomainBlocked = Type.Object({ domain: Type.String(), blocked: Type.Literal(true), suspended: Type.Integer({ minimum: 0 }) }, strict);
