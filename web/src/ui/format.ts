const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const number = new Intl.NumberFormat();
/** The website's one rule for instants: the browser's own zone, as the analytics' default zone is. */
const instant = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});

export const formatDateTime = (ms: number | null | undefined, never = 'Never'): string => (ms == null ? never : dateTime.format(ms));
/** An instant on the browser's clock, its zone named ("Nov 29, 2026, 5:30 AM GMT+1"): where no heading names the zone. */
export const formatInstant = (ms: number): string => instant.format(ms);
export const formatDate = (ms: number): string => dateOnly.format(ms);
export const formatNumber = (value: number): string => number.format(value);
/** `part` as a whole percentage of `whole` (0% of nothing). */
export const share = (part: number, whole: number): string => (whole > 0 ? `${Math.round((part / whole) * 100)}%` : '0%');
export const plural = (count: number, one: string, many: string): string => `${formatNumber(count)} ${count === 1 ? one : many}`;
