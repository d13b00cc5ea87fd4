/**
 * Charts draw a zone's local times on a UTC axis: an instant becomes the seconds its wall clock in
 * `tz` shows, read as if that clock were UTC. A day of the API ("2026-11-25", already in `tz`) is the
 * same number for its midnight, so days, hours and gaps line up without the chart knowing the zone.
 */
const clocks = new Map<string, Intl.DateTimeFormat>();

export function wallSeconds(ms: number, tz: string): number {
  let clock = clocks.get(tz);
  if (!clock) {
    clock = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    clocks.set(tz, clock);
  }
  const part: Record<string, number> = {};
  for (const p of clock.formatToParts(ms)) part[p.type] = Number(p.value);
  return Date.UTC(part.year!, part.month! - 1, part.day, part.hour, part.minute, part.second) / 1000;
}

/** The browser's own time zone (the page's default), or UTC when it names none. */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Every zone the browser knows, its own and UTC included. */
export function zoneNames(): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set(['UTC', browserZone(), ...known])].sort((a, b) => (a === 'UTC' ? -1 : b === 'UTC' ? 1 : a.localeCompare(b)));
}
