import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { classifyAgent, referrerHost, VisitClassifier } from '../../src/analytics/classify.js';
import { toCsv } from '../../src/analytics/csv.js';
import { csvCell } from '../../src/platform/csv-cell.js';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { linkWithKey, stats, visit } from '../helpers/analytics.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60) * 20;
const FORMULA = /^[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/;
const DELIMITERS = [',', ';', '\t'];

/** The cell a spreadsheet reads from `text` with `delimiter`, RFC 4180 quotes honoured; throws if there are more. */
function readCell(text: string, delimiter: string): string {
  if (!text.startsWith('"')) {
    assert.ok(!text.includes(delimiter) && !/[\r\n]/.test(text), `unquoted ${JSON.stringify(text)} splits on ${JSON.stringify(delimiter)}`);
    return text;
  }
  assert.ok(text.endsWith('"') && text.length >= 2, text);
  const inner = text.slice(1, -1);
  assert.ok(!/(^|[^"])"("")*([^"]|$)/.test(inner), `stray quote in ${JSON.stringify(text)}`);
  return inner.replace(/""/g, '"');
}

/** Whether any piece a spreadsheet (or a reader ignoring quotes) could split off starts a formula. */
function startsFormula(text: string): boolean {
  return text.split(/[,;\t\r\n]/).some((piece) => FORMULA.test(piece.replace(/^[\s"]*/, '')));
}

test('a CSV cell is one cell whatever the delimiter, and no piece of it starts a formula', () => {
  const hostile = [
    ';=1+1;x.example',
    '=1+1',
    '+1',
    '-1',
    '@SUM(A1)',
    '\t=1',
    '\r=1',
    '\n=1',
    'a,=1',
    'a;+1',
    'a\t-1',
    'a\r\n@x',
    '  =1',
    '"=1',
    'a;"=1',
    ' " =1',
    '＝1+1',
    '＋1',
    '－1',
    '＠x',
    'a;＝1',
    "=cmd|' /C calc'!A0",
    'x;;=1',
    ',,,',
    ';',
    '"',
    '""',
    '\u00a0=1',
    '\u3000=1',
    'a,\u3000"=1',
  ];
  for (const value of hostile) {
    const cell = csvCell(value);
    assert.equal(startsFormula(cell), false, `${JSON.stringify(value)} -> ${JSON.stringify(cell)}`);
    for (const delimiter of DELIMITERS) {
      const read = readCell(cell, delimiter);
      assert.equal(startsFormula(read), false, `${JSON.stringify(value)} read as ${JSON.stringify(read)}`);
      assert.equal(read.replace(/'/g, ''), value.replace(/'/g, ''), 'only apostrophes are added');
    }
  }
  for (const plain of ['example.com', 'DE', 'unknown', 'Mobile Safari', 'Coc Coc', 'mobile', 'yes', 'recording_unavailable']) {
    assert.equal(csvCell(plain), plain);
  }
  assert.equal(csvCell(';=1+1;x.example'), `";'=1+1;x.example"`);
  assert.equal(csvCell('A, "B"'), '"A, ""B"""');
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('=', '+', '-', '@', ',', ';', '\t', '\r', '\n', '"', ' ', "'", 'a', '1', '＝', '\u3000') }), (value) => {
      const cell = csvCell(value);
      assert.equal(startsFormula(cell), false, JSON.stringify(cell));
      for (const delimiter of DELIMITERS) {
        const read = readCell(cell, delimiter);
        assert.equal(startsFormula(read), false, JSON.stringify(read));
        assert.equal(read.replace(/'/g, ''), value.replace(/'/g, ''));
      }
    }),
    { numRuns: RUNS },
  );
});

test('every text column of a CSV row goes through the same cell rule; browser and device names need nothing of it', () => {
  const csv = toCsv([{ day: '2026-11-15', dimension: 'referrer', value: 'a;=1+1', count: 1 }], []);
  assert.equal(csv.split('\r\n')[1], `visits,2026-11-15,referrer,"a;'=1+1",1,,,`);
  for (const ua of ['=1+1/1.0', ';=1+1;/2.0 (X11; Linux x86_64)', 'Mozilla/5.0 (=cmd|x; -1) @x/1']) {
    const c = classifyAgent(ua);
    assert.equal(csvCell(c.browser), c.browser);
    assert.equal(csvCell(c.device), c.device);
  }
});

test('a referrer host is a real host name, lower-cased, or "unknown"', () => {
  const unknown = [
    'https://;=1+1;x.example/',
    'https://=1+1.example/',
    'https://+1.example/',
    'https://-1.example/',
    'https://a-.example/',
    'https://a,b.example/',
    "https://a'b.example/",
    'https://a"b.example/',
    'https://(x).example/',
    'https://a*b.example/',
    'https://a{b}.example/',
    'https://a~b.example/',
    'https://a$b.example/',
    'https://a!b.example/',
    'https://a&b.example/',
    'https://a=b/',
    'https://＝1+1.example/',
    'https://a;b/',
    'android-app://;=1+1;x/',
    'foo://%3D1+1/',
    'android-app://=1/',
    'android-app://a%20b/',
    `https://${'a'.repeat(64)}.example/`,
    `https://${'abcdefghi.'.repeat(26)}example/`,
    'https://a..b/',
    'https://./',
    'http://127.0.0.1/',
    'http://0x7f.1/',
    'https://[::1]/',
    'not a url',
    'about:blank',
    'mailto:x@example.org',
  ];
  for (const referrer of unknown) assert.equal(referrerHost(referrer), 'unknown', referrer);
  const hosts: [string, string][] = [
    ['https://WWW.Example.COM./path?q=1#x', 'example.com'],
    ['https://news.example.net:8080/;=1+1', 'news.example.net'],
    ['https://münchen.example/', 'xn--mnchen-3ya.example'],
    ['https://sub_domain.example/', 'sub_domain.example'],
    ['android-app://com.google.android.gm/', 'com.google.android.gm'],
    ['https://x-1.example/', 'x-1.example'],
    ['https://__proto__/', '__proto__'],
  ];
  for (const [referrer, host] of hosts) assert.equal(referrerHost(referrer), host, referrer);
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme-ascii' }), fc.constantFrom('https://', 'http://', 'android-app://', 'x:'), (text, scheme) => {
      const host = new VisitClassifier().referrer(`${scheme}${text}`);
      assert.ok(host === 'direct' || host === 'unknown' || /^[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?$/.test(host), host);
      assert.equal(csvCell(host), host);
    }),
    { numRuns: RUNS },
  );
});

eachDatabase('CSV export of hostile referrers', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('a visit whose Referer host is not a real host name is counted as "unknown", and no CSV cell starts a formula', async () => {
    const link = await linkWithKey(h);
    for (const referer of ['https://;=1+1;x.example/', 'https://=1+1.example/', 'https://a,@SUM(1).example/', 'android-app://-1;x/']) {
      await visit(h, link.slug, 1, { headers: { referer } });
    }
    await visit(h, link.slug, 2, { headers: { referer: 'https://www.Example.org/;=1+1' } });
    const body = await stats(h, link.id, link.key);
    assert.deepEqual(body.referrers, [
      { referrer: 'unknown', count: 4 },
      { referrer: 'example.org', count: 2 },
    ]);
    const csv = await h.request('GET', `/links/${link.id}/stats?format=csv`, { key: link.key });
    assert.equal(csv.status, 200);
    assert.match(csv.text, /,referrer,unknown,4,,,\r\n/);
    assert.match(csv.text, /,referrer,example\.org,2,,,\r\n/);
    assert.doesNotMatch(csv.text, /1\+1|SUM/);
    for (const line of csv.text.split('\r\n').slice(1, -1)) {
      for (const delimiter of DELIMITERS) assert.equal(startsFormula(line.split(delimiter).join(',')), false, line);
    }
  });
});
