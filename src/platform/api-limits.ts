/**
 * Every limit, allowance and price of API.md (part 8 and the endpoint bounds), said once: schemas,
 * OpenAPI texts, quotes, config defaults and docs read them here. It sits in platform/ because links,
 * billing, analytics and qr all use it, and it imports nothing so that any layer may.
 */
export const API_LIMITS = freezeSections({
  /** Paid only with purchased credits; free allowances come first. */
  prices: { extraLinkCredits: 10, packCredits: 50, packVisits: 10_000 },
  trial: { linksPerNetworkPerDay: 3, lifetimeDays: 7 },
  /** Defaults of the limits an operator may change: each has its variable (config.ts, README). */
  defaults: {
    rateLimitPerIp: 20,
    rateLimitPerAccount: 30,
    freeLinksPerMonth: 25,
    freeVisitsPerMonth: 5000,
    trackingDailyLimit: 5000,
    /** Not in API.md: bots are recorded under a ceiling of their own and never charged (docs/adr/0049). */
    trackingDailyBotLimit: 5000,
    trialDailyLimit: 100,
  },
  links: {
    pageSize: 50,
    maxOffset: 100_000,
    searchMaxLength: 100,
    targetMaxLength: 2048,
    aliasMaxLength: 40,
    titleMaxLength: 100,
    tagsMaxLength: 160,
    /** Most links in one CSV export (GET /links/export). */
    exportMax: 100_000,
    /** Not in API.md: most rows of one import on the website, and so most aliases one POST /aliases/check takes. */
    importMaxRows: 500,
  },
  stats: { minDays: 1, maxDays: 90, defaultDays: 30, topReferrers: 50 },
  qr: {
    minSize: 256,
    maxSize: 2048,
    defaultSize: 768,
    logoMaxLength: 700_000,
    logoMaxSide: 512,
    minContrast: 4.5,
    /** Not in API.md: the saved design's call to action, and its print size in centimetres. */
    callToActionMaxLength: 40,
    printMinCm: 2,
    printMaxCm: 50,
    defaultPrintCm: 5,
  },
  /** Not in API.md: the largest request body the service reads. */
  requests: { maxBodyBytes: 1_048_576 },
} as const);

/** A count as API.md writes it in prose ("10,000"), for summaries and descriptions. */
export const formatCount = (value: number): string => value.toLocaleString('en-US');

function freezeSections<T extends Record<string, object>>(sections: T): T {
  for (const section of Object.values(sections)) Object.freeze(section);
  return Object.freeze(sections);
}
