import { Type } from '@sinclair/typebox';
import { SCOPES } from '../platform/auth/principal.js';
import { StringEnum } from '../platform/http/common-schemas.js';

const strict = { additionalProperties: false } as const;

const Scope = StringEnum(SCOPES);
const Budget = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
  description: 'Purchased credits the key may spend per UTC month; null: no limit beyond the balance',
});
const UnixMs = (description: string) => Type.Integer({ minimum: 0, description });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const KeySummary = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Nullable(Type.String()),
    prefix: Nullable(Type.String({ description: 'The first characters of the key, to recognise it; null on keys made before prefixes were kept' })),
    last4: Nullable(Type.String({ description: 'The last four characters of the key' })),
    scopes: Type.Array(Scope),
    budget: Budget,
    spentThisMonth: Type.Integer({ minimum: 0 }),
    createdAt: UnixMs('Unix milliseconds'),
    lastUsedAt: Type.Union([UnixMs('Unix milliseconds, to the minute'), Type.Null()]),
  },
  strict,
);

export const KeyList = Type.Object({ keys: Type.Array(KeySummary) }, strict);

export const KeyCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(Scope, { minItems: 1, uniqueItems: true }),
    budget: Budget,
  },
  strict,
);

export const KeyCreated = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    key: Type.String({ description: 'The secret: shown only in this answer' }),
    name: Nullable(Type.String()),
    prefix: Type.String(),
    last4: Type.String(),
    scopes: Type.Array(Scope),
    budget: Budget,
    createdAt: UnixMs('Unix milliseconds'),
  },
  strict,
);

export const PackSummary = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: StringEnum(['active', 'refunded'] as const),
    credits: Type.Integer({ minimum: 0 }),
    visits: Type.Integer({ minimum: 0 }),
    visitsUsed: Type.Integer({ minimum: 0 }),
    createdAt: UnixMs('Unix milliseconds'),
    refundable: Type.Boolean({ description: 'Active with no visit recorded against it' }),
  },
  strict,
);

export const PackList = Type.Object({ packs: Type.Array(PackSummary) }, strict);

export const PackRefunded = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: StringEnum(['refunded'] as const),
    credits: Type.Integer({ minimum: 0 }),
    purchasedBalance: Type.Integer({ minimum: 0 }),
  },
  strict,
);

export const CreditHistory = Type.Object(
  {
    purchasedBalance: Type.Integer({ minimum: 0, description: 'Purchased credits available, less what is reserved (as in GET /account/usage)' }),
    reserved: Type.Integer({ minimum: 0, description: 'Held by requests in flight' }),
    history: Type.Array(
      Type.Object(
        {
          at: UnixMs('Unix milliseconds'),
          credits: Type.Integer({ description: 'Positive: credits in (grant, refund); negative: credits spent (link, pack)' }),
          reason: StringEnum(['grant', 'link', 'pack', 'refund'] as const),
        },
        strict,
      ),
      { description: 'Newest first, at most 100 entries' },
    ),
  },
  strict,
);
