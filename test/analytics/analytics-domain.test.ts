import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { classifyAgent, referrerHost, VisitClassifier } from '../../src/analytics/classify.js';
import { addDemand, addUp, choose, DayTotals, DIMENSIONS, inLockOrder, quarterOf, Tallies, type DayDemand, type Tally } from '../../src/analytics/counts.js';
import { CSV_HEADER, toCsv } from '../../src/analytics/csv.js';
import { BUSY_SPACING, MAX_CYCLE_MS, nextFlushIn, SPACED_FROM_VISITS } from '../../src/analytics/recorder.js';
import type { Visit } from '../../src/analytics/ports.js';
import { ResettingCache } from '../../src/platform/resetting-cache.js';
import { decode, estimate, unpackSketches } from '../../src/analytics/visitors.js';
import { flatRows, quarterRows, UA } from '../helpers/analytics.js';

const T = Date.UTC(2026, 10, 15, 12, 7);
const person = { device: 'mobile' as const, browser: 'Mobile Safari', os: 'iOS', bot: false };
const crawler = { device: 'bot' as const, browser: 'other', os: 'other', bot: true };

/** Visits in arrival order: [link, account, country, bot?, source?]. */
/** A dimension's counts as sorted lists [value, s, q, s_bot, q_bot]. */
const listOf = (list: readonly (string | number)[]) => flatRows(list).sort();
/** A day's quarter hours as sorted lists [`HH:MM`, s, q, s_bot, q_bot]. */
const timeOf = (read: DayTotals) => quarterRows(read).map((row) => [row.value, ...row.n]);
/** A tally as a read adds it up. */
const readBack = (...tallies: Tally[]) =>
  new DayTotals(
    tallies[0]!.day,
    tallies.map((t) => t.encode()),
  );

const visits = (list: [string, string | null, string, boolean?, ('s' | 'q')?][]): Visit[] =>
  list.map(([id, accountId, country, bot, source], i) => ({
    link: { id, accountId },
    time: T + i,
    source: source ?? 's',
    agent: bot ? crawler : person,
    country,
    referrer: 'direct',
    visitor: i,
  }));

test('each account records its first visits in the order they arrived, as many as granted; bots take their own grant; the rest is refused per link and reason', () => {
  const batch = visits([
    ['L1', 'a', 'DE'],
    ['L2', 'a', 'DE'],
    ['T1', null, 'DE'],
    ['L1', 'a', 'US', true],
    ['L3', 'b', 'DE'],
    ['L2', 'a', 'FR'],
    ['T1', null, 'DE'],
    ['L1', 'a', 'NL', true],
  ]);
  const days = new Map<string, DayDemand>();
  addDemand(days, batch.slice(0, 3));
  addDemand(days, batch.slice(3));
  const want = inLockOrder(days).get('2026-11-15')!;
  assert.deepEqual(
    [...want.accounts],
    [
      ['a', 3],
      ['b', 1],
      ['~trial', 2],
    ],
  );
  assert.equal(want.bots, 2, 'bots are asked of their own ceiling, never of an account');
  const grant = {
    accounts: new Map([
      ['a', 2],
      ['b', 1],
      ['~trial', 1],
    ]),
    reasons: new Map([
      ['a', 'allowance_used_up' as const],
      ['~trial', 'daily_ceiling_reached' as const],
    ]),
    bots: 1,
  };
  const { recorded, refused } = choose(batch, new Map([['2026-11-15', grant]]), T + 100);
  assert.deepEqual(
    recorded.map((v) => `${v.link.id} ${v.country}`),
    ['L1 DE', 'L2 DE', 'T1 DE', 'L1 US', 'L3 DE'],
  );
  assert.deepEqual(
    refused.map((r) => [r.linkId, r.reason, r.count, r.from, r.to]),
    [
      ['L2', 'allowance_used_up', 1, T + 5, T + 100],
      ['T1', 'daily_ceiling_reached', 1, T + 6, T + 100],
      ['L1', 'bot_ceiling_reached', 1, T + 7, T + 100],
    ],
  );
});

test("every recorded visit adds one per dimension, in the column of its source and class, and its code to that column's sketch", () => {
  const tallies = new Tallies();
  tallies.add(
    visits([
      ['L1', 'a', 'DE'],
      ['L1', 'a', 'DE', false, 'q'],
      ['L1', 'a', 'US', true, 'q'],
    ]),
  );
  const [tally] = tallies.touched();
  const read = readBack(tally!);
  const of = (dimension: (typeof DIMENSIONS)[number]) => (dimension === 'time' ? timeOf(read) : listOf(read.counts[DIMENSIONS.indexOf(dimension)]!));
  assert.deepEqual(of('country'), [
    ['DE', 1, 1, 0, 0],
    ['US', 0, 0, 0, 1],
  ]);
  assert.deepEqual(of('time'), [['12:00', 1, 1, 0, 1]]);
  assert.deepEqual(of('device'), [
    ['bot', 0, 0, 0, 1],
    ['mobile', 1, 1, 0, 0],
  ]);
  assert.deepEqual(of('os'), [
    ['iOS', 1, 1, 0, 0],
    ['other', 0, 0, 0, 1],
  ]);
  assert.deepEqual(
    unpackSketches(tally!.encode().visitors).map((sketch) => estimate(decode(sketch))),
    [1, 1, 0, 1],
    'one visitor through /s/, one through /q/, none a bot through /s/, one through /q/',
  );
});

test('a writer adds each flush to the tallies it holds; after forgetting them it writes as another writer from zero', () => {
  const tallies = new Tallies();
  const first = tallies.writer;
  tallies.add(visits([['L1', 'a', 'DE']]));
  tallies.touched();
  tallies.add(visits([['L1', 'b', 'FR']]));
  const [again] = tallies.touched();
  assert.deepEqual(timeOf(readBack(again!)), [['12:00', 2, 0, 0, 0]]);
  tallies.forget();
  assert.notEqual(tallies.writer, first);
  tallies.add(visits([['L1', 'c', 'DE']]));
  const [fresh] = tallies.touched();
  assert.deepEqual(timeOf(readBack(fresh!)), [['12:00', 1, 0, 0, 0]]);
});

test('a writer holding too many tallies forgets them before a flush, never between the slices of one', () => {
  const tallies = new Tallies(2);
  tallies.trim(T);
  tallies.add(
    visits([
      ['L1', 'a', 'DE'],
      ['L2', 'a', 'DE'],
      ['L3', 'a', 'DE'],
    ]),
  );
  // The flush's next slice: the tallies of the first are still to be written.
  tallies.add(visits([['L4', 'a', 'DE']]));
  assert.deepEqual(
    tallies.touched().map((tally) => tally.linkId),
    ['L1', 'L2', 'L3', 'L4'],
  );
  const writer = tallies.writer;
  tallies.trim(T);
  assert.notEqual(tallies.writer, writer, 'the next flush writes as a new writer');
});

test("a writer's rows hold at most a UTC hour: the first flush of each hour writes as a new writer, from zero", () => {
  const tallies = new Tallies();
  tallies.trim(T);
  const first = tallies.writer;
  tallies.add(visits([['L1', 'a', 'DE']]));
  tallies.touched();
  // Later in the same hour: the same writer, adding to what it holds.
  tallies.trim(T + 40 * 60_000);
  assert.equal(tallies.writer, first);
  tallies.add(visits([['L1', 'a', 'DE']]));
  assert.deepEqual(timeOf(readBack(tallies.touched()[0]!)), [['12:00', 2, 0, 0, 0]]);
  // The next hour, though its visits (flushed at 13:01) came at 12:07.
  tallies.trim(Date.UTC(2026, 10, 15, 13, 1));
  assert.notEqual(tallies.writer, first);
  tallies.add(visits([['L1', 'a', 'DE']]));
  assert.deepEqual(timeOf(readBack(tallies.touched()[0]!)), [['12:00', 1, 0, 0, 0]]);
});

test("a read adds up the rows of a day's writers, counts and unique visitors, per set of columns", () => {
  const written = (visitsOf: [string, string | null, string, boolean?, ('s' | 'q')?][], visitor: number) => {
    const tallies = new Tallies();
    // Visitor codes are hashes: spread over the 32 bits, as the sketch expects.
    const code = (n: number) => Math.imul(n, 0x9e3779b1) >>> 0;
    tallies.add(visits(visitsOf).map((v) => ({ ...v, time: Date.parse('2026-11-15T12:20:00Z'), visitor: code(visitor + v.visitor) })));
    return tallies.touched()[0]!;
  };
  // Two writers: the visitor 100 comes through /s/ to one instance and through /q/ to the other.
  const read = readBack(
    written(
      [
        ['L1', 'a', 'DE'],
        ['L1', 'a', 'DE', true],
      ],
      100,
    ),
    written(
      [
        ['L1', 'b', 'FR', false, 'q'],
        ['L1', 'b', 'FR', false, 'q'],
      ],
      100,
    ),
  );
  assert.deepEqual(timeOf(read), [['12:15', 1, 2, 1, 0]]);
  assert.deepEqual(listOf(read.counts[1]!), [
    ['DE', 1, 0, 1, 0],
    ['FR', 0, 2, 0, 0],
  ]);
  // Visitors 100 and 101 through /s/ (101 a bot), 100 and 101 through /q/.
  assert.equal(read.visitors(0b0001), 1, '/s/, people');
  assert.equal(read.visitors(0b0011), 2, 'people: 100 through both counts once');
  assert.equal(read.visitors(0b1111), 2, 'everyone');
  assert.equal(read.visitors(0b0100), 1, 'bots through /s/');
  assert.equal(read.visitors(0b1000), 0, 'bots through /q/');
});

test('the time of day counts in UTC quarter hours', () => {
  assert.equal(quarterOf(Date.UTC(2026, 10, 15, 0, 0)), '00:00');
  assert.equal(quarterOf(Date.UTC(2026, 10, 15, 18, 29, 59)), '18:15');
  assert.equal(quarterOf(Date.UTC(2026, 10, 15, 18, 30)), '18:30');
  assert.equal(quarterOf(Date.UTC(2026, 10, 15, 23, 59, 59, 999)), '23:45');
});

test('link-preview fetchers of chat and social apps are bots, like crawlers and scripts', () => {
  for (const ua of [
    'WhatsApp/2.23.20.0 A',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'TelegramBot (like TwitterBot)',
    'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    'Mozilla/5.0 (Linux; Android 12) KakaoTalk-Scrap/1.0',
    'Mozilla/5.0 (compatible; MSIE 6.0; Windows NT 5.1; Trident/4.0) Tumblr',
    'Line/11.0 LinkPreview',
    'iMessageLinkPreview',
  ])
    assert.deepEqual([ua, classifyAgent(ua).bot, classifyAgent(ua).device], [ua, true, 'bot']);
  assert.equal(classifyAgent(UA.iphone).bot, false);
  assert.equal(
    classifyAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 312.0.0.0').bot,
    false,
    "an app's own browser is a person",
  );
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
  assert.deepEqual(classifyAgent(UA.iphone), { device: 'mobile', browser: 'Mobile Safari', os: 'iOS', bot: false });
  assert.equal(classifyAgent(UA.ipad).device, 'tablet');
  assert.deepEqual(classifyAgent(UA.windows), { device: 'desktop', browser: 'Chrome', os: 'Windows', bot: false });
  assert.deepEqual(classifyAgent(UA.googlebot).device, 'bot');
  assert.equal(classifyAgent('curl/8.5.0').bot, true);
  assert.deepEqual(classifyAgent(''), { device: 'other', browser: 'other', os: 'other', bot: false });
  // A phone's system without the device token ua-parser-js reads a device type from is no desktop.
  assert.deepEqual(classifyAgent('Mozilla/5.0 (Linux; Android 14) Firefox/133.0'), { device: 'mobile', browser: 'Firefox', os: 'Android', bot: false });
  assert.equal(classifyAgent('Mozilla/5.0 (Android 14; Mobile)').device, 'mobile');
  assert.equal(classifyAgent('Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0').device, 'desktop');
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

test("the next flush starts an interval after the last started; a busy instance's no sooner than BUSY_SPACING times its length after it ended, nor later than MAX_CYCLE_MS after it started", () => {
  const busy = SPACED_FROM_VISITS;
  // Quiet: a quick flush, or a heartbeat, of 10 ms; the next one second after it started.
  assert.equal(nextFlushIn(0, 10, 3, 1000), 990);
  // A slow database: a small flush of 2 s is followed by a pause of an interval, not a flush at once.
  assert.equal(nextFlushIn(0, 2000, 3, 1000), 1000);
  // Busy: a flush of 100 ms pauses BUSY_SPACING times that.
  assert.equal(nextFlushIn(0, 100, busy, 1000), BUSY_SPACING * 100);
  assert.equal(nextFlushIn(0, 50, busy, 100), BUSY_SPACING * 50);
  // Busy and slow: a flush of 1.5 s would pause 13.5 s; the next starts MAX_CYCLE_MS after it started.
  assert.equal(1500 + nextFlushIn(0, 1500, busy, 1000), MAX_CYCLE_MS);
  assert.equal(2500 + nextFlushIn(0, 2500, busy, 1000), MAX_CYCLE_MS);
  // Longer than the cycle itself: the next at once.
  assert.equal(nextFlushIn(0, MAX_CYCLE_MS + 500, busy, 1000), 0);
  // Times are the monotonic clock's, not from zero.
  assert.equal(nextFlushIn(5_000_000, 5_000_100, busy, 1000), BUSY_SPACING * 100);
  fc.assert(
    fc.property(fc.nat(10_000), fc.integer({ min: 0, max: 10_000 }), fc.nat(20_000), fc.integer({ min: 10, max: 5000 }), (started, took, visits, interval) => {
      const next = started + took + nextFlushIn(started, started + took, visits, interval);
      assert.ok(next >= started + interval && next >= started + took);
      if (visits >= busy) assert.ok(next <= Math.max(started + MAX_CYCLE_MS, started + interval, started + took));
    }),
  );
});

test("adding up a dimension's lists gives each value the sum of its counts, in the order values first appear", () => {
  const list = fc.uniqueArray(fc.tuple(fc.constantFrom('DE', 'FR', 'US', 'a.example', '"quoted"'), fc.array(fc.nat(1000), { minLength: 4, maxLength: 4 })), {
    selector: ([value]) => value,
  });
  fc.assert(
    fc.property(fc.array(list, { maxLength: 6 }), (lists) => {
      const expected = new Map<string, number[]>();
      for (const entries of lists)
        for (const [value, n] of entries)
          expected.set(
            value,
            (expected.get(value) ?? [0, 0, 0, 0]).map((sum, c) => sum + n[c]!),
          );
      assert.deepEqual(
        addUp(lists.map((entries) => entries.flatMap(([value, n]) => [value, ...n]))),
        [...expected].flatMap(([value, n]) => [value, ...n]),
      );
    }),
  );
});
