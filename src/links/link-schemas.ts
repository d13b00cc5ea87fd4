import { Type, type Static } from '@sinclair/typebox';
import { ALIAS_PATTERN } from './slugs.js';
import { StringEnum, IntegerConst } from '../platform/http/common-schemas.js';
import { API_LIMITS } from '../platform/api-limits.js';

const { links: bounds, prices, trial } = API_LIMITS;

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

/**
 * A closed schema cannot be extended (its `additionalProperties` would refuse `trialToken`), so the
 * fields are one open component that Link and LinkCreated each close with `unevaluatedProperties`.
 */
export const LinkFields = Type.Object(linkProperties, {
  $id: 'LinkFields',
  title: 'LinkFields',
  description: 'The fields of a link. Responses use Link or LinkCreated, which allow no other property.',
});
export type LinkResponse = Static<typeof LinkFields>;

export const Link = Type.Unsafe<LinkResponse>({
  $id: 'Link',
  title: 'Link',
  description: 'A saved link: its short URL (/s/) and tracked QR URL (/q/) redirect to its target.',
  allOf: [{ $ref: 'LinkFields' }],
  unevaluatedProperties: false,
});

export const LinkCreated = Type.Unsafe<LinkResponse & { trialToken?: string }>({
  $id: 'LinkCreated',
  title: 'LinkCreated',
  description: 'The result of a link creation: a Link, plus `trialToken` for a trial link.',
  allOf: [
    { $ref: 'LinkFields' },
    {
      type: 'object',
      properties: {
        trialToken: {
          type: 'string',
          description:
            'A trial link’s token, sent as X-Service-Trial-Token to read it; only in the trial creation’s response and its replay, never in reads. Keep it private.',
        },
      },
    },
  ],
  unevaluatedProperties: false,
});

export const CreateLinkBody = Type.Object(
  {
    target: Type.String({ format: 'uri', maxLength: bounds.targetMaxLength }),
    alias: Type.Optional(Type.String({ maxLength: bounds.aliasMaxLength, pattern: ALIAS_PATTERN })),
    title: Type.Optional(text(bounds.titleMaxLength)),
    tags: Type.Optional(text(bounds.tagsMaxLength)),
    maxCredits: Type.Optional(
      Type.Unsafe<0 | typeof prices.extraLinkCredits>({
        type: 'integer',
        enum: [0, prices.extraLinkCredits],
        default: 0,
        description: 'Most purchased credits this creation may spend',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PatchLinkBody = Type.Object(
  {
    // The column is a 32-bit integer: a larger version cannot exist, and must not reach the database.
    version: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    target: Type.Optional(Type.String({ format: 'uri', maxLength: bounds.targetMaxLength })),
    title: Type.Optional(text(bounds.titleMaxLength)),
    tags: Type.Optional(text(bounds.tagsMaxLength)),
    status: Type.Optional(StringEnum(['active', 'paused'] as const)),
  },
  { additionalProperties: false },
);

export const ListQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: bounds.maxOffset, default: 0 })),
    search: Type.Optional(text(bounds.searchMaxLength)),
    tag: Type.Optional(
      Type.String({ minLength: 1, maxLength: bounds.tagsMaxLength, pattern: NO_NUL, description: 'Only links carrying this tag (case ignored)' }),
    ),
    sort: Type.Optional(
      StringEnum(['newest', 'visits', 'title'] as const, {
        default: 'newest',
        description: '`newest` first (the default), most `visits` first, or by `title` (alphabetical, untitled links last)',
      }),
    ),
  },
  { additionalProperties: false },
);

const maxCredits = Type.Optional(
  Type.Unsafe<0 | typeof prices.extraLinkCredits>({
    type: 'integer',
    enum: [0, prices.extraLinkCredits],
    default: 0,
    description: 'Most purchased credits the claim may spend when the month’s free links are used up',
  }),
);

export const ClaimLinkBody = Type.Object(
  {
    trialToken: Type.String({ maxLength: 200, pattern: '^shl_trial_', description: 'The trial link’s token, as its creation returned it' }),
    maxCredits,
  },
  { additionalProperties: false },
);

const aliasText = () => Type.String({ maxLength: bounds.aliasMaxLength, pattern: ALIAS_PATTERN });

export const AliasParams = Type.Object({ alias: aliasText() }, { additionalProperties: false });

export const AliasCheckBody = Type.Object(
  { aliases: Type.Array(aliasText(), { minItems: 1, maxItems: bounds.importMaxRows, description: 'The aliases to look up (case matters)' }) },
  { additionalProperties: false },
);

export const AliasCheckAnswer = Type.Object(
  {
    aliases: Type.Array(Type.Object({ alias: Type.String(), available: Type.Boolean() }, { additionalProperties: false }), {
      description: 'One entry per alias asked about, in the order asked',
    }),
  },
  { additionalProperties: false, $id: 'AliasCheck', title: 'AliasCheck' },
);

export const AliasAvailability = Type.Object(
  {
    alias: Type.String(),
    available: Type.Boolean(),
    suggestion: Type.Optional(Type.String({ description: 'When the alias is taken: a free alias like it' })),
  },
  { additionalProperties: false, $id: 'AliasAvailability', title: 'AliasAvailability' },
);

export const TagList = Type.Object(
  { tags: Type.Array(Type.Object({ tag: Type.String() }, { additionalProperties: false })) },
  { additionalProperties: false, $id: 'TagList', title: 'TagList', description: 'The tags of the account’s links, alphabetical.' },
);

export const LinkList = Type.Object(
  { links: Type.Array(Type.Ref('Link')), hasMore: Type.Boolean() },
  { additionalProperties: false, $id: 'LinkList', title: 'LinkList', description: 'A page of links, newest first.' },
);

export const TrialAllowance = Type.Object(
  {
    trial: Type.Literal(true),
    remaining: Type.Integer({ minimum: 0, maximum: trial.linksPerNetworkPerDay }),
    dailyLinks: IntegerConst(trial.linksPerNetworkPerDay),
    expiresAfterDays: IntegerConst(trial.lifetimeDays),
    resetAt: Type.Integer({ description: 'Unix milliseconds (next midnight UTC)' }),
    sharedCapacity: Type.Literal(true),
  },
  { additionalProperties: false, $id: 'TrialAllowance', title: 'TrialAllowance' },
);
