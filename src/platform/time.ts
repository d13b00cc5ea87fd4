/** UTC calendar helpers: allowances reset per UTC month, trial and tracking limits per UTC day. */
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
export const QUARTER_MS = 900_000;

export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
export const utcMonth = (ms: number): string => new Date(ms).toISOString().slice(0, 7);
export const nextUtcMidnight = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS;
export const secondsUntil = (fromMs: number, toMs: number): number => Math.max(1, Math.ceil((toMs - fromMs) / 1000));
export const days = (n: number): number => n * DAY_MS;

/** The clock is an external edge: production uses Date.now, tests pass their own. */
export type Clock = () => number;

/** Start of the UTC month containing ms, and of the next one. */
export const utcMonthStart = (ms: number): number => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1);
export const nextUtcMonthStart = (ms: number): number => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth() + 1, 1);
