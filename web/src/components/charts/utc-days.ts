/** A UTC day string ("2026-11-25") as the Unix seconds of its midnight: the API's days as they are. */
export const dayStart = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 1000;
