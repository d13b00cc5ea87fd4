const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const number = new Intl.NumberFormat();

export const formatDateTime = (ms: number | null | undefined, never = 'Never'): string => (ms == null ? never : dateTime.format(ms));
export const formatDate = (ms: number): string => dateOnly.format(ms);
export const formatNumber = (value: number): string => number.format(value);
export const plural = (count: number, one: string, many: string): string => `${formatNumber(count)} ${count === 1 ? one : many}`;
