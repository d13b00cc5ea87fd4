/** A day string ("2026-11-25") as the Unix seconds of its midnight read as UTC: the API's days as they are (see wall-clock.ts). */
export const dayStart = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 1000;
