const utc = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** Dates on the link pages are in UTC, as the API's months and days are, and say so. */
export const formatUtc = (ms: number): string => `${utc.format(ms)} UTC`;

/** For a column whose heading already says UTC. */
export const formatUtcDate = (ms: number): string => utc.format(ms);
