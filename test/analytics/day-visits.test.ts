import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import type { UaClass } from '../../src/analytics/classify.js';
import { DayVisits, MAX_COUNTRIES } from '../../src/analytics/day-visits.js';
import { LinkTable, type LinkRef } from '../../src/analytics/link-table.js';
import type { Source, VisitClass } from '../../src/analytics/ports.js';

/** A link reference as the redirect path hands one over before any table took it. */
const linkRef = (id: string, accountId: string | null): LinkRef => ({ id, accountId, table: 0, index: -1 });

type Visit = [link: string, account: string | null, source: Source, country: string, visitor: VisitClass, referrer: string];

const read = (day: DayVisits): string[] =>
  Array.from({ length: day.count }, (_, i) => {
    const l = day.link(i);
    const packed = day.packed(i);
    const visitor = day.classes[packed >>> 16]!;
    return [day.links[l], day.accounts[l], packed & 1 ? 'q' : 's', day.countries[(packed >>> 1) & 0x7fff], visitor.device, visitor.browser, visitor.bot, day.referrers[day.referrer(i)]].join('|');
  });
const line = ([link, account, source, country, visitor, referrer]: Visit) => [link, account, source, country, visitor.device, visitor.browser, visitor.bot, referrer].join('|');

const visits = (n: number, salt: string): Visit[] =>
  Array.from({ length: n }, (_, i) => [
    `link-${salt}-${i % 7}`,
    i % 7 === 3 ? null : `account-${(i % 7) % 2}`,
    i % 3 === 0 ? 'q' : 's',
    ['DE', 'FR', 'unknown'][i % 3]!,
    { device: i % 2 ? 'mobile' : 'bot', browser: `B${i % 4}`, bot: i % 2 === 0 },
    i % 5 === 0 ? 'direct' : `r${i % 11}.example`,
  ]);

test('a day buffer gives back every visit in arrival order, growing from a capacity of one', () => {
  const day = new DayVisits('2026-11-21', 5, 1);
  const sent = visits(5000, 'a');
  for (const v of sent) assert.equal(day.add(...v), true);
  assert.equal(day.count, 5000);
  assert.deepEqual(read(day), sent.map(line));
  // Each distinct value once in the tables; visitor objects of equal content share one class.
  assert.equal(day.links.length, 7);
  assert.equal(day.classes.length, 4);
  assert.equal(day.countries.length, 3);
});

test('appending another buffer of the day keeps both in order, whatever their tables', () => {
  const a = new DayVisits('2026-11-21', 5);
  const b = new DayVisits('2026-11-21', 3);
  const first = visits(300, 'a');
  const second = visits(200, 'b').reverse();
  for (const v of first) a.add(...v);
  for (const v of second) b.add(...v);
  assert.deepEqual(a.append(b), []);
  assert.deepEqual(read(a), [...first, ...second].map(line));
  assert.equal(a.from, 3);
});

test('a visit whose country would not fit the packed word is refused, and nothing of it is kept', () => {
  const day = new DayVisits('2026-11-21', 0);
  const visitor: VisitClass = { device: 'desktop', browser: 'Chrome', bot: false };
  for (let k = 0; k < MAX_COUNTRIES; k++) assert.equal(day.add('L', null, 's', `C${k}`, visitor, 'direct'), true);
  assert.equal(day.add('M', null, 's', 'one too many', visitor, 'direct'), false);
  assert.equal(day.count, MAX_COUNTRIES);
  assert.deepEqual(day.links, ['L']);
  assert.equal(day.countries.length, MAX_COUNTRIES);
  // Appended visits that do not fit are handed back by link, so the recorder reports them as a gap.
  const later = new DayVisits('2026-11-21', 1);
  later.add('M', null, 'q', 'C0', visitor, 'direct');
  later.add('N', null, 's', 'another one', visitor, 'direct');
  assert.deepEqual(day.append(later), ['N']);
  assert.equal(day.count, MAX_COUNTRIES + 1);
});

test('day buffers sent to another thread arrive whole, words copied without detaching the sender\'s memory, each link sent once', async () => {
  const { port1, port2 } = new MessageChannel();
  const tables = new Map<number, LinkTable>();
  const received: DayVisits[] = [];
  port2.on('message', (m) => received.push(DayVisits.fromMessage(m, tables)));
  const send = (day: DayVisits, linksSent: number) => {
    const message = day.toMessage(linksSent);
    port1.postMessage(message);
    return message;
  };
  const table = new LinkTable();
  const first = new DayVisits('2026-11-21', 5, 1, table);
  const sent = visits(3000, 'm');
  for (const v of sent) first.add(...v);
  const { words } = send(first, 0);
  // The visits' words alone (the buffer's spare room stays behind), still attached once posted: a
  // transferred buffer would now be empty (day-visits.ts, DayVisitsMessage).
  assert.equal(words.length, 3 * sent.length);
  assert.equal(words.buffer.byteLength, 4 * 3 * sent.length);
  // The next buffer of the recorder shares its link table: only its new link travels.
  const second = new DayVisits('2026-11-21', 9, 1, table);
  const next: Visit[] = [...sent.slice(0, 4), ['link-new', 'account-9', 's', 'DE', sent[0]![4], 'direct']];
  for (const v of next) second.add(...v);
  const message = send(second, 7);
  assert.equal(message.links.ids, 'link-new');
  while (received.length < 2) await new Promise((resolve) => setImmediate(resolve));
  port1.close();
  assert.deepEqual(read(received[0]!), sent.map(line));
  assert.deepEqual(read(received[1]!), next.map(line));
  assert.equal(received[0]!.from, 5);
  assert.equal(received[1]!.table, received[0]!.table);
  // There they take more visits, and merge with identical link indexes.
  received[0]!.append(received[1]!);
  assert.deepEqual(read(received[0]!), [...sent, ...next].map(line));
  // A message that skips links the thread was never sent is refused, not misread.
  const third = new DayVisits('2026-11-21', 9, 1, table);
  third.add('link-newer', null, 'q', 'FR', sent[0]![4], 'direct');
  const skipping = third.toMessage(9);
  assert.throws(() => DayVisits.fromMessage(skipping, tables), /out of step/);
  // Sent all of the table again, the thread starts its mirror over and reads the buffer.
  const again = DayVisits.fromMessage({ ...skipping, links: table.slice(0) }, tables);
  assert.deepEqual(read(again), [line(['link-newer', null, 'q', 'FR', sent[0]![4], 'direct'])]);
});

test('a link reference keeps its index in the link table; another table looks the link up again', () => {
  const visitor: UaClass = { id: 0, device: 'mobile', browser: 'Chrome', bot: false };
  const a = linkRef('link-a', 'account-1');
  const b = linkRef('link-b', null);
  const table = new LinkTable();
  const day = new DayVisits('2026-11-21', 0, 1, table);
  day.add('link-0', 'account-0', 's', 'DE', visitor, 'direct');
  day.addLink(b, 'q', 'FR', visitor, 'direct');
  day.addLink(a, 's', 'DE', visitor, 'direct');
  day.addLink(b, 's', 'DE', visitor, 'news.example');
  assert.deepEqual([a.table, a.index, b.table, b.index], [table.id, 2, table.id, 1]);
  // Filled by add(), the table knows the same link under the same index.
  day.add('link-a', 'account-1', 'q', 'DE', visitor, 'direct');
  assert.deepEqual(read(day), [
    'link-0|account-0|s|DE|mobile|Chrome|false|direct',
    'link-b||q|FR|mobile|Chrome|false|direct',
    'link-a|account-1|s|DE|mobile|Chrome|false|direct',
    'link-b||s|DE|mobile|Chrome|false|news.example',
    'link-a|account-1|q|DE|mobile|Chrome|false|direct',
  ]);
  const next = new DayVisits('2026-11-22', 0, 1, new LinkTable());
  next.addLink(a, 's', 'DE', visitor, 'direct');
  assert.deepEqual([a.table, a.index], [next.table.id, 0]);
  assert.deepEqual(read(next), ['link-a|account-1|s|DE|mobile|Chrome|false|direct']);
});

test("the redirect path finds a class by the classifier's id, however large, and by content after add()", () => {
  const link = linkRef('link-a', 'account-1');
  const day = new DayVisits('2026-11-21', 0, 1, new LinkTable());
  const bot: UaClass = { id: 700, device: 'bot', browser: 'other', bot: true };
  const mobile: UaClass = { id: 3, device: 'mobile', browser: 'Mobile Safari', bot: false };
  day.add('link-b', null, 's', 'DE', { device: 'mobile', browser: 'Mobile Safari', bot: false }, 'direct');
  for (const visitor of [bot, mobile, bot, mobile]) day.addLink(link, 's', 'DE', visitor, 'direct');
  assert.deepEqual(read(day), [
    'link-b||s|DE|mobile|Mobile Safari|false|direct',
    'link-a|account-1|s|DE|bot|other|true|direct',
    'link-a|account-1|s|DE|mobile|Mobile Safari|false|direct',
    'link-a|account-1|s|DE|bot|other|true|direct',
    'link-a|account-1|s|DE|mobile|Mobile Safari|false|direct',
  ]);
  assert.equal(day.classes.length, 2);
});
