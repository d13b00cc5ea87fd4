import { Type, type Static } from '@sinclair/typebox';
import { ALIAS_PATTERN } from './slugs.js';
import { MAX_TARGET_LENGTH } from './targets.js';
import { StringEnum, IntegerConst } from '../platform/http/common-schemas.js';

export const LinkStatusSchema = StringEnum(['active', 'paused', 'suspended', 'deleted'] as const);

/**
 * PostgreSQL text cannot hold U+0000 (SQLite can): refused in every free-text input, so both databases
 * agree and a NUL is a 400 rather than a storage error.
 */
const NO_NUL = '^[^\\u0000]*$';
const text = (maxLength: number) => Type.String({ maxLength, pattern: NO_NUL });

const linkProperties = {
  id: Type.String({ format: 'uuid' }),
  slug: Type.String(),
  target: Type.String({ description: 'destination URL' }),
  title: Type.String(),
  tags: Type.String(),
  status: LinkStatusSchema,
  version: Type.Integer({ description: 'Optimistic concurrency: rises by one on every successful edit' }),
  environment: Type.Literal('live'),
  created_at: Type.Integer({ description: 'Unix milliseconds' }),
  updated_at: Type.Integer({ description: 'Unix milliseconds' }),
  shortUrl: Type.String({ format: 'uri' }),
  qrUrl: Type.String({ format: 'uri' }),
  visits: Type.Optional(Type.Integer({ minimum: 0, description: 'Visits recorded for this link (all time)' })),
  trial: Type.Optional(Type.Boolean()),
  expiresAt: Type.Optional(Type.Integer({ description: 'Trial expiry, Unix milliseconds; absent for account links' })),
};

export const Link = Type.Object(linkProperties, { additionalProperties: false, $id: 'Link', title: 'Link' });
export type LinkResponse = Static<typeof Link>;

export const LinkCreated = Type.Object(
  { ...linkProperties, trialToken: Type.Optional(Type.String({ description: 'Trial creation and its replay only' })) },
  { additionalProperties: false, title: 'LinkCreated' },
);

export const CreateLinkBody = Type.Object(
  {
    target: Type.String({ format: 'uri', maxLength: MAX_TARGET_LENGTH }),
    alias: Type.Optional(Type.String({ maxLength: 40, pattern: ALIAS_PATTERN })),
    title: Type.Optional(text(100)),
    tags: Type.Optional(text(160)),
    maxCredits: Type.Optional(Type.Unsafe<0 | 10>({ type: 'integer', enum: [0, 10], default: 0, description: 'Most purchased credits this creation may spend' })),
  },
  { additionalProperties: false },
);

export const PatchLinkBody = Type.Object(
  {
    // The column is a 32-bit integer: a larger version cannot exist, and must not reach the database.
    version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    target: Type.Optional(Type.String({ format: 'uri', maxLength: MAX_TARGET_LENGTH })),
    title: Type.Optional(text(100)),
    tags: Type.Optional(text(160)),
    status: Type.Optional(StringEnum(['active', 'paused'] as const)),
  },
  { additionalProperties: false },
);

export const ListQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0 })),
    search: Type.Optional(text(100)),
  },
  { additionalProperties: false },
);

export const LinkList = Type.Object(
  { links: Type.Array(Type.Ref('Link')), hasMore: Type.Boolean() },
  { additionalProperties: false, title: 'LinkList' },
);

export const TrialAllowance = Type.Object(
  {
    trial: Type.Literal(true),
    remaining: Type.Integer({ minimum: 0, maximum: 3 }),
    dailyLinks: IntegerConst(3),
    expiresAfterDays: IntegerConst(7),
    resetAt: Type.Integer({ description: 'Unix milliseconds (next midnight UTC)' }),
    sharedCapacity: Type.Literal(true),
  },
  { additionalProperties: false, title: 'TrialAllowance' },
);
