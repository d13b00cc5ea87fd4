import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { DayVisits } from '../../src/analytics/day-visits.js';
import type { VisitClass } from '../../src/analytics/ports.js';
import { bucketOf, DayEncoder, decodeBatch, encodeDay, type JournalBatch } from '../../src/analytics/store/journal.js';

const mobile: VisitClass = { device: 'mobile', browser: 'Mobile Safari', bot: false };
const crawler: VisitClass = { device: 'bot', browser: 'other', bot: true };

/** Journal numbers for a day's link table, as link_numbers would give them (any distinct numbers), and the way back. */
function numbered(day: DayVisits): { nums: Uint32Array; idOf: (batch: JournalBatch, index: number) => string } {
  const nums = Uint32Array.from(day.links, (_, i) => 1000 + 7 * i);
  const ids = new Map(day.links.map((id, i) => [nums[i]!, id]));
  const idOf = (batch: JournalBatch, index: number) => {
    assert.ok('nums' in batch.links, 'a batch names its links by number');
    return ids.get(batch.links.nums[index]!)!;
  };
  return { nums, idOf };
}

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
  const { nums, idOf } = numbered(visits);
  for (const [bucket, data] of encodeDay(visits, keep, nums)) {
    const batch = decodeBatch(data);
    assert.equal(batch.day, '2026-11-21');
    // As read from a database, where a value may start anywhere: words that are not 4-byte aligned.
    const unaligned = Buffer.alloc(data.length + 1).subarray(1);
    data.copy(unaligned);
    assert.deepEqual(decodeBatch(unaligned).words, batch.words);
    for (let i = 0; i < batch.visits; i++) {
      const packed = batch.words[3 * i + 2]!;
      const visitor = batch.classes[packed >>> 16]!;
      assert.equal(bucketOf(idOf(batch, batch.words[3 * i]!)), bucket);
      seen.push([idOf(batch, batch.words[3 * i]!), packed & 1 ? 'q' : 's', batch.countries[(packed >>> 1) & 0x7fff], visitor.device, visitor.browser, visitor.bot, batch.referrers[batch.words[3 * i + 1]!]].join('|'));
    }
  }
  const expected = sent.filter((_, i) => keep[i]);
  assert.equal(seen.length, 900);
  assert.deepEqual(seen.sort(), expected.sort());
});

test('batches stay exact as their shared link table grows between flushes', () => {
  const first = new DayVisits('2026-11-21', 0, 16);
  const plainIds = Array.from({ length: 300 }, () => crypto.randomUUID());
  for (const [i, id] of plainIds.entries()) first.add(id, null, i % 2 ? 'q' : 's', 'DE', mobile, 'direct');
  // The next buffer shares the table (as the recorder's buffers do) and adds links to it, among them
  // ids no UUID looks like (numbers stand for them: no id is written).
  const second = new DayVisits('2026-11-22', 0, 16, first.table);
  const oddIds = ['quote"d', 'back\\slash', 'ünï'];
  const more = [...plainIds.slice(0, 50), ...Array.from({ length: 300 }, () => crypto.randomUUID()), ...oddIds];
  for (const id of more) second.add(id, null, 's', 'US', crawler, 'example.org');
  const third = new DayVisits('2026-11-23', 0, 16, first.table);
  for (const id of plainIds.slice(0, 20)) third.add(id, null, 's', 'JP', mobile, 'direct');
  for (const [day, ids] of [[first, plainIds], [second, more], [third, plainIds.slice(0, 20)]] as const) {
    const seen: string[] = [];
    const { nums, idOf } = numbered(day);
    for (const [bucket, data] of encodeDay(day, null, nums)) {
      const batch = decodeBatch(data);
      assert.equal(batch.day, day.day);
      assert.ok(!data.includes(ids[0]!), 'no link id is written');
      for (let i = 0; i < batch.visits; i++) {
        const link = idOf(batch, batch.words[3 * i]!);
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
  const { nums } = numbered(day);
  const encoder = new DayEncoder(day, keep, nums);
  for (let from = 0; from < day.count; from += 97) encoder.add(from, Math.min(day.count, from + 97));
  for (let from = 0; from < day.count; from += 61) encoder.place(from, Math.min(day.count, from + 61));
  assert.deepEqual(new Map(encoder.batches()), encodeDay(day, keep, nums));
});

test('a batch of version 1 (links named by id, written before migration 0010) still decodes', () => {
  const link = crypto.randomUUID();
  const header = Buffer.from(JSON.stringify({ v: 1, day: '2026-11-20', links: [link], referrers: ['direct'], classes: [['mobile', 'Mobile Safari', 0]], countries: ['DE'] }));
  const start = 4 + header.length + ((4 - (header.length % 4)) % 4);
  const data = Buffer.alloc(start + 2 * 12, 0x20);
  data.writeUInt32LE(header.length, 0);
  header.copy(data, 4);
  // Two visits of the link: one through /s/, one through /q/.
  for (const [v, words] of [[0, 0, 0], [0, 0, 1]].entries()) for (const [w, word] of words.entries()) data.writeUInt32LE(word, start + 12 * v + 4 * w);
  const batch = decodeBatch(data);
  assert.deepEqual(batch.links, { ids: [link] });
  assert.equal(batch.visits, 2);
  assert.deepEqual([...batch.words], [0, 0, 0, 0, 0, 1]);
  assert.deepEqual(batch.classes, [mobile]);
});
