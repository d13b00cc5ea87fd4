import { Type } from '@sinclair/typebox';
import { DEVICE_CLASSES, GAP_REASONS } from './ports.js';
import { Count, StringEnum } from '../platform/http/common-schemas.js';
import { API_LIMITS } from '../platform/api-limits.js';

const { stats: bounds } = API_LIMITS;

const ms = (description: string) => Type.Integer({ description: `${description}, Unix milliseconds` });

/** Shared by a link's stats and a tag's. */
const WindowQuery = {
  days: Type.Optional(
    Type.Integer({ minimum: bounds.minDays, maximum: bounds.maxDays, default: bounds.defaultDays, description: 'Days, today included (in `tz`)' }),
  ),
  bots: Type.Optional(
    StringEnum(['include', 'exclude'] as const, {
      default: 'include',
      description:
        '`exclude` leaves out visits classified as bots (crawlers, scripts, link previews of chat and social apps); the default counts every redirect',
    }),
  ),
  tz: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'An IANA time zone (`Europe/Berlin`, `Asia/Kolkata`): days, hours, `from` and `to` follow it instead of UTC',
    }),
  ),
};

export const StatsQuery = Type.Object(
  {
    ...WindowQuery,
    format: Type.Optional(StringEnum(['json', 'csv'] as const, { default: 'json' })),
    source: Type.Optional(StringEnum(['s', 'q'] as const, { description: 'Only visits through the short URL (`s`) or the QR URL (`q`)' })),
  },
  { additionalProperties: false },
);

export const TagStatsQuery = Type.Object(
  { ...WindowQuery, tag: Type.String({ minLength: 1, maxLength: API_LIMITS.links.tagsMaxLength, description: 'One tag, matched whole and in any case' }) },
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

const named = <K extends string>(key: K, description: string) =>
  Type.Object(
    { [key]: Type.String({ description }), count: Count('Visits') } as { [P in K]: ReturnType<typeof Type.String> } & { count: ReturnType<typeof Count> },
    {
      additionalProperties: false,
    },
  );

export const Stats = Type.Object(
  {
    from: ms('Start of the window: midnight (in `tz`, else UTC) of its first day'),
    to: ms('End of the window (the time of the request)'),
    refreshedAt: ms('Every visit before this time is counted (all instances had made their visits durable by then); later ones may not be yet'),
    total: Count('Visits in the window: every redirect, unless `bots=exclude`'),
    daily: Type.Array(
      Type.Object(
        {
          date: Type.String({ format: 'date' }),
          total: Count('Visits that day'),
          s: Count('Through /s/'),
          q: Count('Through /q/ (QR)'),
          bots: Count('Of the day’s visits, those by bots (0 with `bots=exclude`)'),
          visitors: Count(
            'Unique visitors that day, estimated (a standard error of about 1.6%): a network and user agent, counted once a UTC day; with `tz`, a UTC day’s count is shared among the dates its visits fall on, by their visits',
          ),
          hours: Type.Array(Count('Visits in the hour'), {
            minItems: 24,
            maxItems: 24,
            description: 'Visits per hour of the day on the clock of `tz` (0 to 23)',
          }),
        },
        { additionalProperties: false },
      ),
      { description: 'Every day of the window, oldest first, zeros included' },
    ),
    countries: Type.Array(named('country', 'ISO 3166-1 alpha-2, or "unknown"'), { description: 'Sorted by count, descending' }),
    devices: Type.Array(
      Type.Union([
        Type.Object({ device: StringEnum(DEVICE_CLASSES), count: Count('Visits') }, { additionalProperties: false }),
        named('browser', 'Browser name from a fixed list, or "other"'),
        named('os', 'Operating system from a fixed list, or "other"'),
      ]),
      { description: 'Device classes, then browsers, then operating systems, each sorted by count, descending' },
    ),
    referrers: Type.Array(named('referrer', 'Host without www., "direct" when absent, "unknown" when not a URL, "other" for the rest'), {
      description: `Top ${bounds.topReferrers} by count, then one "other" entry summing the rest`,
    }),
    gaps: Type.Array(Gap, { description: 'Periods overlapping the window in which visits were not recorded' }),
  },
  { additionalProperties: false, $id: 'Stats', title: 'Stats' },
);

const TagGap = Type.Object(
  {
    ...Gap.properties,
    linkId: Type.Optional(Type.String({ format: 'uuid', description: 'The link whose visits were not recorded; absent when no link’s were' })),
  },
  { additionalProperties: false, title: 'TagStatsGap' },
);

const visitorsNote = 'estimated: a network and user agent counted once a day, so a person who comes back on another day counts again';

export const TagStats = Type.Object(
  {
    tag: Type.String(),
    from: ms('Start of the window'),
    to: ms('End of the window (the time of the request)'),
    refreshedAt: ms('Every visit before this time is counted'),
    total: Count('Visits of all the links in the window'),
    s: Count('Through /s/'),
    q: Count('Through /q/ (QR)'),
    visitors: Count(`Unique visitors of the campaign, ${visitorsNote}; one who opens two of its links on one day counts once`),
    links: Type.Array(
      Type.Object(
        {
          id: Type.String({ format: 'uuid' }),
          slug: Type.String(),
          title: Type.String(),
          total: Count('Visits'),
          s: Count('Through /s/'),
          q: Count('Through /q/'),
          visitors: Count(`Unique visitors of the link, ${visitorsNote}: the sum of the days’ \`visitors\` of its stats`),
          daily: Type.Array(
            Type.Object(
              { date: Type.String({ format: 'date' }), s: Count('Through /s/ that day'), q: Count('Through /q/ that day') },
              { additionalProperties: false },
            ),
            { description: 'Every day of the window (in `tz`), oldest first, zeros included' },
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'Every link of the account with the tag, by visits, descending' },
    ),
    gaps: Type.Array(TagGap, { description: 'Periods overlapping the window in which visits of the links were not recorded, oldest first' }),
  },
  { additionalProperties: false, $id: 'TagStats', title: 'TagStats' },
);
