import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { classifyAgent, referrerHost, VisitClassifier } from '../../src/analytics/classify.js';
import { CSV_HEADER, toCsv } from '../../src/analytics/csv.js';
import type { Recorded } from '../../src/analytics/ports.js';
import { DayVisits } from '../../src/analytics/visits.js';
import { ResettingCache } from '../../src/platform/resetting-cache.js';
import { UA } from '../helpers/analytics.js';

const mobile = { device: 'mobile' as const, browser: 'Chrome', bot: false };
const crawler = { device: 'bot' as const, browser: 'other', bot: true };

/** A recorded link's counts per dimension, as plain objects. */
const counts = (recorded: Recorded) => {
  const maps = recorded.rollup().counts;
  return Object.fromEntries(Object.entries(maps).map(([dimension, values]) => [dimension, Object.fromEntries(values)]));
};

/** Visits in arrival order, as [link, account, country] triples, tallied. */
async function day(visits: [string, string | null, string][]): Promise<DayVisits> {
  const buffer = new DayVisits('2026-11-15', 0);
  for (const [id, accountId, country] of visits) buffer.add({ id, accountId }, 's', country, country === 'US' ? crawler : mobile, 'direct');
  await buffer.tally();
  return buffer;
}

test("an account's links are granted in the order of their first visit, each link's values in order of arrival; the rest is refused per link", async () => {
  const visits = await day([
    ['L1', 'a', 'DE'],
    ['L2', 'a', 'DE'],
    ['T1', null, 'DE'],
    ['L1', 'a', 'US'],
    ['L3', 'b', 'DE'],
    ['L2', 'a', 'FR'],
    ['T1', null, 'DE'],
  ]);
  assert.deepEqual(visits.accountTotals(), [
    ['a', 4],
    ['b', 1],
    ['~trial', 2],
  ]);
  const { recorded, refused } = await visits.grant(
    new Map([
      ['a', 3],
      ['b', 1],
      ['~trial', 1],
    ]),
  );
  assert.deepEqual(
    recorded.map((r) => [r.linkId, r.visits, counts(r).country, counts(r).device]),
    [
      ['L1', 2, { DE: 1, US: 1 }, { mobile: 1, bot: 1 }],
      ['L2', 1, { DE: 1 }, { mobile: 1 }],
      ['T1', 1, { DE: 1 }, { mobile: 1 }],
      ['L3', 1, { DE: 1 }, { mobile: 1 }],
    ],
  );
  assert.deepEqual(
    [...refused],
    [
      ['L2', { account: 'a', count: 1 }],
      ['T1', { account: '~trial', count: 1 }],
    ],
  );
  const all = await visits.grant(
    new Map([
      ['a', 4],
      ['b', 1],
      ['~trial', 2],
    ]),
  );
  assert.equal(all.refused.size, 0);
  assert.equal(
    all.recorded.reduce((n, r) => n + r.visits, 0),
    7,
  );
  assert.deepEqual((await visits.grant(new Map())).recorded, []);
});

test('a link granted part of its visits records its first visits, the same ones in every dimension', async () => {
  const visits = new DayVisits('2026-11-15', 0);
  const link = { id: 'L', accountId: 'a' };
  const sequence = Array.from({ length: 50 }, (_, i) => ({
    source: i % 3 ? ('s' as const) : ('q' as const),
    country: ['DE', 'FR', 'US'][i % 3]!,
    visitor: i % 4 ? mobile : crawler,
    referrer: `r${i % 5}.example`,
  }));
  for (const v of sequence) visits.add(link, v.source, v.country, v.visitor, v.referrer);
  await visits.tally();
  for (const granted of [0, 1, 17, 49, 50, 80]) {
    const [own] = (await visits.grant(new Map([['a', granted]]))).recorded;
    const expected = Math.min(granted, 50);
    assert.equal(own?.visits ?? 0, expected);
    if (own === undefined) continue;
    // The first visits, counted one by one, values in the order of their first visit.
    const tally = (value: (v: (typeof sequence)[number]) => string) => {
      const counted: Record<string, number> = {};
      for (const v of sequence.slice(0, expected)) counted[value(v)] = (counted[value(v)] ?? 0) + 1;
      return counted;
    };
    const { s, q } = own.rollup();
    assert.deepEqual({ s, q }, { s: tally((v) => v.source).s ?? 0, q: tally((v) => v.source).q ?? 0 });
    const written = counts(own);
    assert.deepEqual(Object.keys(written), ['source', 'country', 'device', 'browser', 'referrer', 'bot']);
    assert.deepEqual(written, {
      source: tally((v) => v.source),
      country: tally((v) => v.country),
      device: tally((v) => v.visitor.device),
      browser: tally((v) => v.visitor.browser),
      referrer: tally((v) => v.referrer),
      bot: tally((v) => (v.visitor.bot ? 'yes' : 'no')),
    });
  }
});

test('referrers become lower-case hosts without www., direct when absent, unknown when not a URL', () => {
  assert.equal(referrerHost('https://WWW.Example.COM./path?q=1#x'), 'example.com');
  assert.equal(referrerHost('http://news.example.net:8080/a'), 'news.example.net');
  assert.equal(referrerHost('android-app://com.google.android.gm/'), 'com.google.android.gm');
  assert.equal(referrerHost('not a url'), 'unknown');
  assert.equal(referrerHost('about:blank'), 'unknown');
  const classifier = new VisitClassifier();
  assert.equal(classifier.referrer(undefined), 'direct');
  assert.equal(classifier.referrer(''), 'direct');
});

test('user agents are classified as mobile, tablet, desktop, bot or other', () => {
  assert.deepEqual(classifyAgent(UA.iphone), { device: 'mobile', browser: 'Mobile Safari', bot: false });
  assert.equal(classifyAgent(UA.ipad).device, 'tablet');
  assert.deepEqual(classifyAgent(UA.windows), { device: 'desktop', browser: 'Chrome', bot: false });
  assert.deepEqual(classifyAgent(UA.googlebot).device, 'bot');
  assert.equal(classifyAgent('curl/8.5.0').bot, true);
  assert.deepEqual(classifyAgent(''), { device: 'other', browser: 'other', bot: false });
  const classifier = new VisitClassifier();
  assert.equal(classifier.userAgent(UA.iphone), classifier.userAgent(UA.iphone), 'cached and interned');
});

test('CSV quotes fields and defuses values a spreadsheet would run as formulas', () => {
  const csv = toCsv(
    [
      { day: '2026-11-15', dimension: 'referrer', value: '=cmd|x', count: 1 },
      { day: '2026-11-15', dimension: 'browser', value: 'A, "B"', count: 2 },
    ],
    [{ from: 1, to: 2, reason: 'recording_unavailable' }],
  );
  assert.deepEqual(csv.split('\r\n'), [
    CSV_HEADER,
    "visits,2026-11-15,referrer,'=cmd|x,1,,,",
    'visits,2026-11-15,browser,"A, ""B""",2,,,',
    'gap,,,,,1,2,recording_unavailable',
    '',
  ]);
});

test('browser names come from a fixed list: case variants and invented names are "other"', () => {
  assert.equal(classifyAgent('gObRoWsEr/1.0').browser, 'other');
  assert.equal(classifyAgent('SNAPCHAT/1.2').browser, classifyAgent('Snapchat/1.2').browser);
  assert.equal(classifyAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0').browser, 'Firefox');
  const names = new Set(Array.from({ length: 500 }, (_, i) => classifyAgent(`Custom${i}Agent/1.0 (X11; Linux x86_64)`).browser));
  assert.ok(names.size <= 2, [...names].join(','));
});

test('a referrer naming a numeric address is "unknown"', () => {
  assert.equal(referrerHost('http://203.0.113.5/page'), 'unknown');
  assert.equal(referrerHost('https://[2001:db8::1]/x'), 'unknown');
  assert.equal(referrerHost('https://www.Example.org./x?y'), 'example.org');
});

test('ResettingCache answers exactly as a Map that is cleared when full, also for keys that share a front slot', () => {
  // The front table samples six characters of a key: keys that differ only in their first five
  // characters (and have one length) share a slot. Few keys, so that keys come back often.
  const key = fc.oneof(
    fc.constantFrom('aaaaa', 'abbba', 'babab', 'bbbbb').map((head) => `${head}-fixed-suffix-xyz`),
    fc.stringMatching(/^[ab]{0,2}$/),
  );
  const op = fc.oneof(fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }), fc.record({ kind: fc.constant('get' as const), key }));
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 8 }), fc.array(op, { maxLength: 120 }), (max, ops) => {
      const cache = new ResettingCache<number>(max);
      const model = new Map<string, number>();
      for (const o of ops) {
        if (o.kind === 'set') {
          cache.set(o.key, o.value);
          if (model.size >= max) model.clear();
          model.set(o.key, o.value);
        } else {
          assert.equal(cache.get(o.key), model.get(o.key), o.key);
        }
      }
    }),
    { numRuns: 500 },
  );
});
