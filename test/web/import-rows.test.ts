import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkRows, rowKey, withTaken } from '../../web/src/pages/import/check-rows.js';
import { aliasOf, readRows, tagsOf } from '../../web/src/pages/import/columns.js';
import { CsvError, parseCsv } from '../../web/src/pages/import/csv.js';
import { planRows, ranges, totals } from '../../web/src/pages/import/plan.js';
import { fileNames } from '../../web/src/pages/import/qr-names.js';
import { destinationOf } from '../../web/src/pages/links/new-link-fields.js';

const HOST = 'links.example.net';

test('CSV cells may be quoted, hold commas, quotes and line breaks; CRLF, a byte order mark and blank lines are fine', () => {
  const text = '\uFEFFdestination,title\r\n"https://example.org/a,b","Say ""hi""\nthere"\r\n\r\nhttps://example.org/c,Plain\n';
  assert.deepEqual(parseCsv(text), [
    ['destination', 'title'],
    ['https://example.org/a,b', 'Say "hi"\nthere'],
    ['https://example.org/c', 'Plain'],
  ]);
  assert.deepEqual(parseCsv('destination;title\nhttps://example.org/x;Semicolons, as saved in many languages'), [
    ['destination', 'title'],
    ['https://example.org/x', 'Semicolons, as saved in many languages'],
  ]);
  assert.throws(
    () => parseCsv('destination,title\nhttps://example.org,"never closed\n'),
    (error: CsvError) => error.line === 2,
  );
});

test('our header, Bitly’s and Shlink’s are read; other columns are named as left out', () => {
  const ours = readRows('destination,title,tags,alias,utm_source,UTM medium,utm-campaign\nhttps://example.org/m,Menu,print,menu,poster,print,spring');
  assert.deepEqual(ours.rows[0], {
    row: 1,
    destination: 'https://example.org/m',
    title: 'Menu',
    tags: 'print',
    alias: 'menu',
    utmSource: 'poster',
    utmMedium: 'print',
    utmCampaign: 'spring',
  });
  const bitly = readRows(
    'title,long_url,link,custom_bitlinks,tags,created_at\nSpring,https://example.org/s,https://bit.ly/3xYz,https://bit.ly/spring-sale,"a, b",2024-01-01',
  );
  assert.deepEqual([bitly.rows[0]!.destination, bitly.rows[0]!.alias, bitly.rows[0]!.tags], ['https://example.org/s', 'https://bit.ly/spring-sale', 'a, b']);
  assert.deepEqual(bitly.ignored, ['link', 'created_at']);
  const bitlyDashboard = readRows('Title,Destination URL,Custom link\nMenu,https://example.org/menu,go.example.com/menu');
  assert.equal(bitlyDashboard.rows[0]!.destination, 'https://example.org/menu');
  const shlink = readRows(
    'createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits\n2024-01-01,,abc12,https://s.test/abc12,https://example.org/l,Launch,print|poster,3',
  );
  assert.deepEqual([shlink.rows[0]!.destination, shlink.rows[0]!.alias, shlink.rows[0]!.tags], ['https://example.org/l', 'abc12', 'print|poster']);
  assert.throws(() => readRows('title,alias\nMenu,menu'), /destination/);
  assert.throws(() => readRows('destination\n' + 'https://example.org/x\n'.repeat(501)), /at most 500/);
});

test('an alias is taken from a custom short link, and tags are joined with commas', () => {
  assert.equal(aliasOf('https://bit.ly/spring-sale'), 'spring-sale');
  assert.equal(aliasOf('bit.ly/spring-sale/?x=1, bit.ly/other'), 'spring-sale');
  assert.equal(aliasOf(' menu '), 'menu');
  assert.equal(tagsOf('print| poster ,,spring'), 'print, poster, spring');
});

test('UTM fields are appended, replacing one of the same name; other parameters keep their order and encoding', () => {
  const utm = (target: string, utmSource = '', utmMedium = '', utmCampaign = '') => destinationOf({ target, utmSource, utmMedium, utmCampaign });
  assert.equal(
    utm('example.com/menu?lang=en&q=a+b%20c&flag&utm_source=old#top', 'poster', 'print', 'spring sale'),
    'https://example.com/menu?lang=en&q=a+b%20c&flag&utm_source=poster&utm_medium=print&utm_campaign=spring%20sale#top',
  );
  assert.equal(utm('https://example.com/?utm%5Fsource=x&utm_medium=y', 'poster'), 'https://example.com/?utm_medium=y&utm_source=poster');
  assert.equal(utm('https://example.com/a?x=1'), 'https://example.com/a?x=1', 'no UTM field: the address as typed');
});

test('rows are checked by creation’s rules: bad addresses, bad aliases, repeats and taken aliases', async () => {
  const { rows } = readRows(
    [
      'destination,title,alias,utm_source',
      'example.org/menu,Menu,menu,poster',
      'ftp://example.org/file,FTP,,',
      'https://user:secret@example.org/,Credentials,,',
      `https://${HOST}/s/abc,Loop,,`,
      'https://example.org/menu?utm_source=poster,Menu,menu,',
      'https://example.org/other,Other,menu,',
      'https://example.org/bad-alias,Bad alias,no spaces,',
      'https://exämple.org/café,Accents,,',
      `https://example.org/long,${'T'.repeat(120)},,`,
      'https://example.org/taken,Taken,taken,',
    ].join('\n'),
  );
  const checked = withTaken(await checkRows(rows, 'import-1', HOST), new Set(['taken']), () => false);
  const problems = checked.map((row) => row.problem);
  assert.equal(checked[0]!.body.target, 'https://example.org/menu?utm_source=poster');
  assert.equal(problems[0], undefined);
  assert.match(problems[1]!, /Only http/);
  assert.match(problems[2]!, /user name or password/);
  assert.match(problems[3]!, /leads back/);
  assert.match(problems[4]!, /Same as row 1/);
  assert.match(problems[5]!, /Row 1 has the alias menu/);
  assert.match(problems[6]!, /The alias no spaces cannot be used/);
  assert.equal(problems[7], undefined);
  assert.equal(checked[7]!.body.target, 'https://xn--exmple-cua.org/caf%C3%A9');
  assert.equal(checked[8]!.body.title!.length, 100);
  assert.match(checked[8]!.notes[0]!, /shortened/);
  assert.match(problems[9]!, /alias taken is taken/);
  assert.equal(checked[4]!.key, checked[0]!.key, 'a repeated row has the same key, so even sent it is made once');
});

test('a row’s key depends on the import and the row only, and is a UUID', async () => {
  const key = await rowKey('import-1', '["https://example.org/"]');
  assert.match(key, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(await rowKey('import-1', '["https://example.org/"]'), key);
  assert.notEqual(await rowKey('import-2', '["https://example.org/"]'), key);
});

test('the first rows take the free links left, the rest are paid; made rows are skipped and unanswered ones resent as sent', async () => {
  const { rows } = readRows('destination\n' + Array.from({ length: 6 }, (_, i) => `https://example.org/${i}`).join('\n'));
  const checked = await checkRows(rows, 'import-1', HOST);
  const link = { id: 'x', slug: 's', shortUrl: 'u', qrUrl: 'q', title: '' };
  const outcomes = {
    [checked[0]!.key]: { state: 'made' as const, body: checked[0]!.body, link },
    [checked[1]!.key]: { state: 'sending' as const, body: { ...checked[1]!.body, maxCredits: 10 } },
  };
  const planned = planRows(checked, outcomes, 2);
  assert.deepEqual(
    planned.map((row) => row.plan),
    ['made', 'resend', 'free', 'free', 'paid', 'paid'],
  );
  assert.deepEqual(planned[1]!.send, { target: 'https://example.org/1', maxCredits: 10 });
  assert.deepEqual(planned[4]!.send, { target: 'https://example.org/4', maxCredits: 10 });
  assert.deepEqual(totals(planned), { bad: 0, made: 1, free: 2, paid: 2, resend: 1, credits: 30 });
  assert.equal(ranges([1, 2, 3, 5, 7, 8]), '1–3, 5, 7–8');
  const repeated = await checkRows(readRows('destination\nhttps://example.org/0\nhttps://example.org/0').rows, 'import-1', HOST);
  assert.deepEqual(
    planRows(repeated, { [repeated[0]!.key]: outcomes[checked[0]!.key]! }, 0).map((row) => [row.plan, row.outcome?.state]),
    [
      ['made', 'made'],
      ['bad', undefined],
    ],
    'a repeated row shares the key of the row it repeats, not its link',
  );
});

test('ZIP file names come from titles: plain, short, never reserved, unique ignoring case', () => {
  const names = fileNames([
    { title: 'Café menu: spring/summer', slug: 'a1' },
    { title: 'café MENU  spring summer', slug: 'a2' },
    { title: '海报', slug: 'poster-cn' },
    { title: '', slug: 'b2' },
    { title: 'CON', slug: 'c3' },
    { title: `${'x'.repeat(70)}`, slug: 'd4' },
  ]);
  assert.deepEqual(names, ['Cafe-menu-spring-summer', 'cafe-MENU-spring-summer-2', 'poster-cn', 'b2', 'CON-link', 'x'.repeat(60)]);
  assert.deepEqual(
    fileNames([
      { title: 'Poster', slug: 'a' },
      { title: 'poster', slug: 'b' },
      { title: 'Poster 2', slug: 'c' },
    ]),
    ['Poster', 'poster-2', 'Poster-2-2'],
  );
});
