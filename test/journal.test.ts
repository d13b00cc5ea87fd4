import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import type { DayVisits, VisitClass } from '../src/domain/analytics/ports.js';
import { bucketOf, decodeBatch, encodeDay } from '../src/store/journal.js';

const mobile: VisitClass = { device: 'mobile', browser: 'Mobile Safari', bot: false };
const crawler: VisitClass = { device: 'bot', browser: 'other', bot: true };

test('a journal batch decodes to exactly the kept visits of its bucket, whatever their values', () => {
  const links = Array.from({ length: 40 }, () => crypto.randomUUID());
  const visits: DayVisits = { day: '2026-11-21', from: 0, links: [], accounts: [], sources: [], countries: [], classes: [], referrers: [] };
  for (let i = 0; i < 1000; i++) {
    visits.links.push(links[i % links.length]!);
    visits.accounts.push(null);
    visits.sources.push(i % 3 === 0 ? 'q' : 's');
    visits.countries.push(i % 7 === 0 ? 'unknown' : ['DE', 'US', 'JP'][i % 3]!);
    visits.classes.push(i % 5 === 0 ? crawler : mobile);
    // Non-ASCII hosts and long values survive the header's JSON.
    visits.referrers.push(i % 4 === 0 ? 'direct' : `bücher-${i % 9}.example`);
  }
  const keep = Uint8Array.from(visits.links, (_, i) => (i % 10 === 9 ? 0 : 1));
  const seen: string[] = [];
  for (const [bucket, data] of encodeDay(visits, keep)) {
    const batch = decodeBatch(data);
    assert.equal(batch.day, '2026-11-21');
    for (const link of batch.links) assert.equal(bucketOf(link), bucket);
    for (let i = 0; i < batch.visits; i++) {
      const packed = batch.word(i, 2);
      const visitor = batch.classes[packed >>> 16]!;
      seen.push([batch.links[batch.word(i, 0)], packed & 1 ? 'q' : 's', batch.countries[(packed >>> 1) & 0x7fff], visitor.device, visitor.browser, visitor.bot, batch.referrers[batch.word(i, 1)]].join('|'));
    }
  }
  const expected = visits.links.flatMap((link, i) =>
    keep[i] ? [[link, visits.sources[i], visits.countries[i], visits.classes[i]!.device, visits.classes[i]!.browser, visits.classes[i]!.bot, visits.referrers[i]].join('|')] : [],
  );
  assert.equal(seen.length, 900);
  assert.deepEqual(seen.sort(), expected.sort());
});
