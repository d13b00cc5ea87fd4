import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Dimension } from '../../src/analytics/ports.js';
import { PendingVisits } from '../../src/analytics/visits.js';

const DAY = 86_400_000;
const midnight = Date.UTC(2026, 10, 21);
const mobile = { device: 'mobile' as const, browser: 'Chrome', bot: false };
const crawler = { device: 'bot' as const, browser: 'other', bot: true };
const a = { id: 'link-a', accountId: 'account-1' };
const b = { id: 'link-b', accountId: null };

/** Per day, per link as a flush granting every visit writes it: visits, s and q, and each dimension's values in order. */
const contents = async (pending: PendingVisits) => {
  const days = [];
  for (const day of await pending.tallied()) {
    const { recorded } = await day.grant(new Map(day.accountTotals()));
    const links = recorded.map((r) => {
      const { s, q, counts } = r.rollup();
      const values = (dimension: Dimension) => [...counts[dimension]].map(([value, n]) => `${value},${n}`).join(' ');
      return [r.linkId, r.visits, `s ${s} q ${q}`, values('country'), values('device'), values('referrer')];
    });
    days.push([day.day, day.from, links]);
  }
  return days;
};

test('visits are counted per UTC day, link and dimension value, links and values in the order of their first visit', async () => {
  const pending = new PendingVisits();
  pending.add(b, 'q', 'DE', mobile, 'direct', midnight - 1);
  pending.add(a, 's', 'DE', mobile, 'direct', midnight);
  pending.add(a, 's', 'DE', mobile, 'direct', midnight + 5);
  pending.add(a, 'q', 'FR', crawler, 'x.example', midnight + 6);
  pending.add(b, 'q', 'DE', mobile, 'direct', midnight + DAY - 1);
  pending.add(a, 'q', 'FR', mobile, 'x.example', midnight - 2);
  assert.equal(pending.visits, 6);
  await pending.tallied();
  assert.deepEqual(await contents(pending), [
    [
      '2026-11-20',
      midnight - 1,
      [
        ['link-b', 1, 's 0 q 1', 'DE,1', 'mobile,1', 'direct,1'],
        ['link-a', 1, 's 0 q 1', 'FR,1', 'mobile,1', 'x.example,1'],
      ],
    ],
    [
      '2026-11-21',
      midnight,
      [
        ['link-a', 3, 's 2 q 1', 'DE,2 FR,1', 'mobile,2 bot,1', 'direct,2 x.example,1'],
        ['link-b', 1, 's 0 q 1', 'DE,1', 'mobile,1', 'direct,1'],
      ],
    ],
  ]);
});

test('a later buffer appended to a failed flush’s keeps the older visits first, and the day starts at its first visit', async () => {
  const failed = new PendingVisits();
  failed.add(a, 's', 'DE', mobile, 'direct', midnight + 10);
  // A failed flush's visits are tallied; the later ones are not yet.
  await failed.tallied();
  const later = new PendingVisits();
  later.add(b, 's', 'US', mobile, 'direct', midnight + 20);
  later.add(a, 's', 'US', mobile, 'direct', midnight + 30);
  later.add(a, 'q', 'DE', mobile, 'direct', midnight + DAY);
  failed.append(later);
  assert.equal(failed.visits, 4);
  await failed.tallied();
  assert.deepEqual(await contents(failed), [
    [
      '2026-11-21',
      midnight + 10,
      [
        ['link-a', 2, 's 2 q 0', 'DE,1 US,1', 'mobile,2', 'direct,2'],
        ['link-b', 1, 's 1 q 0', 'US,1', 'mobile,1', 'direct,1'],
      ],
    ],
    ['2026-11-22', midnight + DAY, [['link-a', 1, 's 0 q 1', 'DE,1', 'mobile,1', 'direct,1']]],
  ]);
  // Visits after the append go on counting in the right day.
  failed.add(b, 's', 'US', mobile, 'direct', midnight + 40);
  await failed.tallied();
  assert.equal(failed.days.get('2026-11-21')!.links.get('link-b')!.visits, 2);
});

test('grouping a large buffer lets the event loop turn about once a millisecond of work, not once per fixed number of visits', async () => {
  const pending = new PendingVisits();
  const VISITS = 200_000;
  const links = Array.from({ length: 10_000 }, (_, i) => ({ id: `link-${i}`, accountId: 'account-1' }));
  for (let v = 0; v < VISITS; v++) pending.add(links[v % links.length]!, 's', 'DE', mobile, 'direct', midnight);
  let turns = 0;
  let counting = true;
  const turn = () => {
    turns++;
    if (counting) setImmediate(turn);
  };
  setImmediate(turn);
  const started = performance.now();
  await pending.tallied();
  const ms = performance.now() - started;
  counting = false;
  // A breath every 128 visits would be 1,562 turns; one per millisecond of work is about `ms` (a turn per slice, and one more).
  assert.ok(turns <= ms + 2, `${turns} turns of the event loop in ${ms.toFixed(0)} ms of grouping`);
  assert.ok(turns >= 1, 'grouping lets the event loop turn');
  assert.equal(pending.days.get('2026-11-21')!.links.size, links.length);
});
