import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { DayVisits } from '../src/domain/analytics/day-visits.js';
import type { VisitClass } from '../src/domain/analytics/ports.js';
import { bucketOf, DayEncoder, decodeBatch, encodeDay } from '../src/store/journal.js';

const mobile: VisitClass = { device: 'mobile', browser: 'Mobile Safari', bot: false };
const crawler: VisitClass = { device: 'bot', browser: 'other', bot: true };

test('a journal batch decodes to exactly the kept visits of its bucket, whatever their values', () => {
  const links = Array.from({ length: 40 }, () => crypto.randomUUID());
  const visits = new DayVisits('2026-11-21', 0, 16);
  const sent: string[] = [];
  for (let i = 0; i < 1000; i++) {
    const link = links[i % links.length]!;
    const source = i % 3 === 0 ? 'q' : 's';
    const country = i % 7 === 0 ? 'unknown' : ['DE', 'US', 'JP'][i % 3]!;
    const visitor = i % 5 === 0 ? crawler : mobile;
    // Non-ASCII hosts and long values survive the header's JSON.
    const referrer = i % 4 === 0 ? 'direct' : `bücher-${i % 9}.example`;
    assert.equal(visits.add(link, null, source, country, visitor, referrer), true);
    sent.push([link, source, country, visitor.device, visitor.browser, visitor.bot, referrer].join('|'));
  }
  assert.equal(visits.count, 1000);
  const keep = Uint8Array.from(sent, (_, i) => (i % 10 === 9 ? 0 : 1));
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
  const expected = sent.filter((_, i) => keep[i]);
  assert.equal(seen.length, 900);
  assert.deepEqual(seen.sort(), expected.sort());
});

test('batches stay exact as their shared link table grows between flushes, also past an id that JSON must escape', () => {
  const first = new DayVisits('2026-11-21', 0, 16);
  const plainIds = Array.from({ length: 300 }, () => crypto.randomUUID());
  for (const [i, id] of plainIds.entries()) first.add(id, null, i % 2 ? 'q' : 's', 'DE', mobile, 'direct');
  // The next buffer shares the table (as the recorder's buffers do) and adds links to it, among them
  // ids no UUID looks like: the header must still be JSON that reads back to the same ids.
  const second = new DayVisits('2026-11-22', 0, 16, first.table);
  const oddIds = ['quote"d', 'back\\slash', 'ünï'];
  const more = [...plainIds.slice(0, 50), ...Array.from({ length: 300 }, () => crypto.randomUUID()), ...oddIds];
  for (const id of more) second.add(id, null, 's', 'US', crawler, 'example.org');
  const third = new DayVisits('2026-11-23', 0, 16, first.table);
  for (const id of plainIds.slice(0, 20)) third.add(id, null, 's', 'JP', mobile, 'direct');
  for (const [day, ids] of [[first, plainIds], [second, more], [third, plainIds.slice(0, 20)]] as const) {
    const seen: string[] = [];
    for (const [bucket, data] of encodeDay(day, null)) {
      const batch = decodeBatch(data);
      assert.equal(batch.day, day.day);
      for (let i = 0; i < batch.visits; i++) {
        const link = batch.links[batch.word(i, 0)]!;
        assert.equal(bucketOf(link), bucket, link);
        seen.push(link);
      }
    }
    assert.deepEqual(seen.sort(), [...ids].sort());
  }
});

test('a day encoded in slices (counted, then placed, a slice at a time) gives the same batches as in one go', () => {
  const links = Array.from({ length: 90 }, () => crypto.randomUUID());
  const day = new DayVisits('2026-11-21', 0, 16);
  for (let i = 0; i < 1000; i++) day.add(links[(i * 7) % links.length]!, null, i % 2 ? 'q' : 's', ['DE', 'US'][i % 2]!, i % 3 ? mobile : crawler, `r${i % 5}.example`);
  const keep = Uint8Array.from({ length: day.count }, (_, i) => (i % 4 === 3 ? 0 : 1));
  const encoder = new DayEncoder(day, keep);
  for (let from = 0; from < day.count; from += 97) encoder.add(from, Math.min(day.count, from + 97));
  for (let from = 0; from < day.count; from += 61) encoder.place(from, Math.min(day.count, from + 61));
  assert.deepEqual(new Map(encoder.batches()), encodeDay(day, keep));
});
