import { Type } from '@sinclair/typebox';
import { Count, IntegerConst, StringEnum } from '../platform/http/common-schemas.js';
import { API_LIMITS } from '../platform/api-limits.js';

export const QuoteBody = Type.Object({ action: StringEnum(['link.create', 'tracking.purchase'] as const) }, { additionalProperties: false });

export const QuoteResult = Type.Object(
  {
    action: Type.Optional(Type.String()),
    credits: Type.Optional(Type.Integer({ description: 'Purchased credits the action would cost now (0 while free links remain)' })),
    maxCredits: Type.Optional(Type.Integer({ description: 'The most the action can cost: the maxCredits to send to accept paying' })),
    budgetRemaining: Type.Optional(Type.Integer({ description: 'What this key may still spend this UTC month (no budget: the available balance)' })),
    purchasedAvailable: Type.Optional(Type.Integer({ description: 'Purchased balance less active reservations' })),
    canSpend: Type.Optional(Type.Boolean({ description: 'Whether this key could perform the action now' })),
    freeLinks: Type.Optional(Type.Integer({ description: 'Free links left this UTC month' })),
    quoteIsEstimate: Type.Optional(Type.Literal(true)),
    trackingDailyServiceLimit: Type.Optional(Type.Integer()),
  },
  {
    additionalProperties: false,
    $id: 'Quote',
    title: 'Quote',
    description: 'An estimate of what an action would cost this key now; no field is always present.',
  },
);

export const CapacityBody = Type.Object({ maxCredits: IntegerConst(API_LIMITS.prices.packCredits) }, { additionalProperties: false });

export const CapacityPack = Type.Object(
  { id: Type.String({ format: 'uuid' }), status: StringEnum(['active', 'refunded'] as const), credits: Type.Integer() },
  { additionalProperties: false, $id: 'CapacityPack', title: 'CapacityPack' },
);

export const Usage = Type.Object(
  {
    month: Type.String({ description: 'The UTC month reported, YYYY-MM' }),
    resetAt: Type.Integer({ description: 'Start of the next UTC month (Unix ms): free links and visits reset' }),
    links: Type.Object(
      {
        createdThisMonth: Count('Links created this UTC month, free and paid'),
        freeLeft: Count('Free links left this UTC month'),
        total: Count('All links of the account'),
      },
      { additionalProperties: false },
    ),
    visits: Type.Object(
      {
        recordedThisMonth: Count('Visits recorded this UTC month'),
        allowanceLeft: Count('Visits that can still be recorded: freeLeft + packsLeft'),
        freeLeft: Count('Free recorded visits left this UTC month'),
        packsLeft: Count('Unused visits of active capacity packs (carried forward)'),
      },
      { additionalProperties: false },
    ),
    purchasedBalance: Count('Purchased credits available: balance less active reservations'),
    keyBudget: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Monthly budget of the calling key; null: no limit beyond the balance' }),
    keySpent: Count('Credits the calling key spent (or holds reserved) this UTC month'),
    pricing: Type.Object(
      {
        extraLinkCredits: Type.Integer(),
        capacityPackCredits: Type.Integer(),
        capacityPackVisits: Type.Integer(),
        freeLinksPerMonth: Type.Integer(),
        freeVisitsPerMonth: Type.Integer(),
        trackingDailyServiceLimit: Type.Integer(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, $id: 'Usage', title: 'Usage' },
);
