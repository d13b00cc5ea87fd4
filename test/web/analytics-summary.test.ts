import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summarise } from '../../web/src/pages/link/analytics-summary.js';
import type { Stats } from '../../web/src/pages/link/use-stats.js';

/** A link's stats of one day (Sunday 29 November 2026) whose visits all came through the QR code from phones at `hour`. */
const sundayAt = (hour: number, visits: number): Stats => {
  const hours = new Array<number>(24).fill(0);
  hours[hour] = visits;
  return {
    from: 0,
    to: 0,
    refreshedAt: 0,
    total: visits,
    daily: [{ date: '2026-11-29', total: visits, s: 0, q: visits, bots: 0, visitors: visits, hours }],
    countries: [],
    devices: [{ device: 'mobile', count: visits }],
    referrers: [],
    gaps: [],
  } as unknown as Stats;
};

test('the summary names the busiest part of a day as a person would: hours 0 to 5 are the early hours of that day, not its night', () => {
  const filters = { days: 7, source: 'both' as const, bots: false, tz: 'America/New_York' };
  assert.equal(summarise(sundayAt(5, 4), filters), 'Most visits came through the QR code (100%), most often in the early hours of Sunday, from phones.');
  assert.equal(summarise(sundayAt(14, 4), filters), 'Most visits came through the QR code (100%), most often on Sunday afternoon, from phones.');
  assert.equal(summarise(sundayAt(21, 4), filters), 'Most visits came through the QR code (100%), most often on Sunday evening, from phones.');
});
