import { Type } from '@sinclair/typebox';
import { DEVICE_CLASSES, GAP_REASONS } from './ports.js';
import { Count, StringEnum } from '../platform/http/common-schemas.js';
import { API_LIMITS } from '../platform/api-limits.js';

const { stats: bounds } = API_LIMITS;

const ms = (description: string) => Type.Integer({ description: `${description}, Unix milliseconds` });

export const StatsQuery = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({ minimum: bounds.minDays, maximum: bounds.maxDays, default: bounds.defaultDays, description: 'UTC days, today included' }),
    ),
    format: Type.Optional(StringEnum(['json', 'csv'] as const, { default: 'json' })),
  },
  { additionalProperties: false },
);

export const Gap = Type.Object(
  {
    from: ms('Start of the period in which visits were not recorded'),
    to: ms('End of that period'),
    reason: StringEnum(GAP_REASONS),
  },
  { additionalProperties: false, title: 'StatsGap' },
);

export const Stats = Type.Object(
  {
    from: ms('Start of the window (midnight UTC, days - 1 days before today)'),
    to: ms('End of the window (the time of the request)'),
    refreshedAt: ms('Every visit before this time is counted (all instances had made their visits durable by then); later ones may not be yet'),
    total: Count('Recorded redirects in the window'),
    daily: Type.Array(
      Type.Object(
        { date: Type.String({ format: 'date' }), total: Count('Visits that UTC day'), s: Count('Through /s/'), q: Count('Through /q/ (QR)') },
        { additionalProperties: false },
      ),
      { description: 'Every UTC day of the window, oldest first, zeros included' },
    ),
    countries: Type.Array(
      Type.Object({ country: Type.String({ description: 'ISO 3166-1 alpha-2, or "unknown"' }), count: Count('Visits') }, { additionalProperties: false }),
      { description: 'Sorted by count, descending' },
    ),
    devices: Type.Array(Type.Object({ device: StringEnum(DEVICE_CLASSES), count: Count('Visits') }, { additionalProperties: false }), {
      description: 'Sorted by count, descending',
    }),
    referrers: Type.Array(
      Type.Object(
        {
          referrer: Type.String({ description: 'Host without www., "direct" when absent, "unknown" when not a URL, "other" for the rest' }),
          count: Count('Visits'),
        },
        { additionalProperties: false },
      ),
      { description: `Top ${bounds.topReferrers} by count, then one "other" entry summing the rest` },
    ),
    gaps: Type.Array(Gap, { description: 'Periods overlapping the window in which visits were not recorded' }),
  },
  { additionalProperties: false, $id: 'Stats', title: 'Stats' },
);
