import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eachDatabase } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { linkWithKey, stats, UA, visit } from '../helpers/analytics.js';
import { add, emptySketch, estimate, VisitorCodes } from '../../src/analytics/visitors.js';

const BOT = { 'user-agent': UA.googlebot };

/** The unique-visitor estimate of a sketch holding exactly these visitors, on the UTC day of `time` (today on `h`'s clock), under the deployment's secret. */
async function estimateOf(h: Harness, visitors: Array<[address: string, userAgent: string]>, time = h.clock.now()): Promise<number> {
  const { value } = await h.database.db.selectFrom('settings').select('value').where('name', '=', 'network_secret').executeTakeFirstOrThrow();
  const codes = new VisitorCodes(value);
  const sketch = emptySketch();
  add(
    sketch,
    visitors.map(([address, userAgent]) => codes.code(address, userAgent, time)),
  );
  return estimate(sketch);
}
type Daily = { date: string; total: number; s: number; q: number; bots: number; visitors: number; hours: number[] };
const hoursOf = (day: Daily) => Object.fromEntries(day.hours.flatMap((n, hour) => (n > 0 ? [[hour, n]] : [])));

eachDatabase('what a stats request narrows and on which clock', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { TRUST_PROXY: '1' });
  });
  after(async () => h.close());

  test('source narrows every figure of the JSON and the CSV to the short URL or the QR URL', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 3, { path: 's', headers: { referer: 'https://poster.example/', 'x-forwarded-for': '198.51.100.1' } });
    await visit(h, link.slug, 2, { path: 'q', headers: { 'user-agent': UA.windows, 'x-forwarded-for': '198.51.100.2' } });
    const both = await stats(h, link.id, link.key);
    const qr = await stats(h, link.id, link.key, '?source=q');
    assert.deepEqual([both.total, qr.total], [5, 2]);
    assert.deepEqual([qr.daily.at(-1).s, qr.daily.at(-1).q, qr.daily.at(-1).visitors], [0, 2, 1]);
    assert.deepEqual(qr.referrers, [{ referrer: 'direct', count: 2 }]);
    assert.deepEqual(
      qr.devices.filter((d: object) => 'device' in d),
      [{ device: 'desktop', count: 2 }],
    );
    const short = await stats(h, link.id, link.key, '?source=s');
    assert.deepEqual([short.total, short.referrers[0]], [3, { referrer: 'poster.example', count: 3 }]);
    const csv = await h.request('GET', `/links/${link.id}/stats?format=csv&source=q&days=1`, { key: link.key });
    assert.ok(csv.text.includes('\r\nvisits,2026-11-15,source,q,2,,,\r\n'), csv.text);
    assert.ok(!csv.text.includes('poster.example') && !csv.text.includes(',source,s,'), csv.text);
  });

  test('bots are counted and shown apart by default, and bots=exclude leaves them out of every figure', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 3);
    await visit(h, link.slug, 2, { headers: BOT });
    await visit(h, link.slug, 1, { headers: { 'user-agent': 'WhatsApp/2.23.20.0 A' } });
    const all = await stats(h, link.id, link.key);
    assert.deepEqual([all.total, all.daily.at(-1).bots], [6, 3]);
    assert.ok(all.devices.some((d: { device?: string; count: number }) => d.device === 'bot' && d.count === 3));
    const people = await stats(h, link.id, link.key, '?bots=exclude');
    assert.deepEqual([people.total, people.daily.at(-1).bots, people.daily.at(-1).hours[12]], [3, 0, 3]);
    assert.ok(!people.devices.some((d: { device?: string }) => d.device === 'bot'));
  });

  test('tz puts days, hours, from and to on the clock of a zone east, west, or half an hour off UTC', async () => {
    const link = await linkWithKey(h);
    const at = async (iso: string, n: number) => {
      h.clock.ms = Date.parse(iso);
      await visit(h, link.slug, n);
    };
    await at('2026-11-16T22:30:00Z', 1); // Berlin 23:30 on the 16th; New York 17:30; Kolkata 04:00 on the 17th
    await at('2026-11-16T23:10:00Z', 2); // Berlin 00:10 on the 17th; Kolkata 04:40
    await at('2026-11-17T04:50:00Z', 4); // New York 23:50 on the 16th; Kolkata 10:20
    await at('2026-11-17T18:40:00Z', 8); // Kolkata 00:10 on the 18th; New York 13:40
    const days = (body: { daily: Daily[] }) => Object.fromEntries(body.daily.filter((d) => d.total > 0).map((d) => [d.date, [d.total, hoursOf(d)]]));
    h.clock.ms = Date.parse('2026-11-17T19:00:00Z');
    const kolkata = await stats(h, link.id, link.key, '?days=2&tz=Asia/Kolkata');
    assert.deepEqual(days(kolkata), { '2026-11-17': [7, { 4: 3, 10: 4 }], '2026-11-18': [8, { 0: 8 }] });
    assert.deepEqual([kolkata.from, kolkata.daily.map((d: Daily) => d.date)], [Date.parse('2026-11-16T18:30:00Z'), ['2026-11-17', '2026-11-18']]);
    const oneDay = await stats(h, link.id, link.key, '?days=1&tz=Asia/Kolkata');
    assert.equal(oneDay.total, 8, 'the 17th in Kolkata ended at 18:30 UTC: only the visits since count for the 18th');
    h.clock.ms = Date.parse('2026-11-17T20:00:00Z');
    const utc = await stats(h, link.id, link.key, '?days=2');
    assert.deepEqual(days(utc), { '2026-11-16': [3, { 22: 1, 23: 2 }], '2026-11-17': [12, { 4: 4, 18: 8 }] });
    const berlin = await stats(h, link.id, link.key, '?days=2&tz=Europe/Berlin');
    assert.deepEqual(days(berlin), { '2026-11-16': [1, { 23: 1 }], '2026-11-17': [14, { 0: 2, 5: 4, 19: 8 }] });
    assert.deepEqual([berlin.from, berlin.to], [Date.parse('2026-11-15T23:00:00Z'), h.clock.ms]);
    const newYork = await stats(h, link.id, link.key, '?days=2&tz=America/New_York');
    assert.deepEqual(days(newYork), { '2026-11-16': [7, { 17: 1, 18: 2, 23: 4 }], '2026-11-17': [8, { 13: 8 }] });
    assert.equal(newYork.from, Date.parse('2026-11-16T05:00:00Z'));
    // One visitor, one sketch a UTC day: its estimate goes to the local dates the day's visits fall on, by their share.
    const visitors = (body: { daily: Daily[] }) => Object.fromEntries(body.daily.map((d) => [d.date, d.visitors]));
    assert.deepEqual(visitors(kolkata), { '2026-11-17': 1, '2026-11-18': 1 }, 'the 16th UTC falls on the 17th in Kolkata, the 17th UTC mostly on the 18th');
    assert.deepEqual(visitors(berlin), { '2026-11-16': 0, '2026-11-17': 2 }, 'the 16th UTC falls mostly on the 17th in Berlin');
    assert.deepEqual(visitors(newYork), { '2026-11-16': 1, '2026-11-17': 1 });
    assert.deepEqual(visitors(utc), { '2026-11-16': 1, '2026-11-17': 1 });
    for (const body of [kolkata, berlin, newYork, utc]) for (const day of body.daily as Daily[]) assert.ok(day.visitors <= day.total, JSON.stringify(day));
  });

  test('unique visitors of a day count a network and user agent once, also when both instances saw them', async () => {
    const link = await linkWithKey(h);
    const h2 = await Harness.start(kind, { TRUST_PROXY: '1' }, h.database);
    try {
      h2.clock.ms = h.clock.ms;
      const from = (ip: string, ua = UA.iphone) => ({ headers: { 'x-forwarded-for': ip, 'user-agent': ua } });
      await visit(h, link.slug, 3, from('203.0.113.1'));
      await visit(h, link.slug, 1, from('203.0.113.1', UA.windows));
      await visit(h2, link.slug, 2, from('203.0.113.2'));
      await visit(h2, link.slug, 1, from('2001:db8:5:6::1'));
      await visit(h2, link.slug, 1, from('2001:db8:5:6::2'));
      // The first visitor again, through the other instance: the day's salt is the same on both.
      await visit(h2, link.slug, 2, from('203.0.113.1'));
      await h2.app.visitRecorder.flush();
    } finally {
      await h2.close({ keepDatabase: true });
    }
    const body = await stats(h, link.id, link.key);
    const today = body.daily.at(-1);
    // Four visitors: what a sketch of exactly these four estimates. That is 4, or 3 in the rare
    // deployment whose secret puts two of them in one register (1 in about 700): the count is approximate.
    assert.deepEqual(
      [today.total, today.visitors],
      [
        10,
        await estimateOf(h, [
          ['203.0.113.1', UA.iphone],
          ['203.0.113.1', UA.windows],
          ['203.0.113.2', UA.iphone],
          ['2001:db8:5:6::1', UA.iphone],
        ]),
      ],
    );
  });
});

eachDatabase('a tag’s links in one request', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind);
  });
  after(async () => h.close());

  test('every link of the account with the tag, its visits and by source; other tags, accounts and bad input are left out', async () => {
    const { key } = await h.account();
    const make = async (tags: string, title: string) => (await h.createLink({ target: 'https://example.org/spring', tags, title }, { key })).body;
    const poster = await make('Spring Sale, print', 'Poster');
    const mailing = await make('newsletter,  spring sale ', 'Mailing');
    const other = await make('spring sales', 'Not this one');
    await visit(h, poster.slug, 3, { path: 'q' });
    await visit(h, poster.slug, 1, { path: 's' });
    await visit(h, mailing.slug, 2, { path: 's' });
    await visit(h, mailing.slug, 1, { headers: BOT });
    await visit(h, other.slug, 5);
    const stranger = await h.account();
    await h.createLink({ target: 'https://example.org/x', tags: 'spring sale' }, { key: stranger.key });
    await h.app.visitRecorder.flush();
    const res = await h.request('GET', '/links/stats?tag=SPRING%20SALE&days=7', { key });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.links.map((l: { title: string; total: number; s: number; q: number }) => [l.title, l.total, l.s, l.q]),
      [
        ['Poster', 4, 1, 3],
        ['Mailing', 3, 3, 0],
      ],
    );
    assert.deepEqual([res.body.tag, res.body.total, res.body.s, res.body.q], ['SPRING SALE', 7, 4, 3]);
    const people = await h.request('GET', '/links/stats?tag=spring%20sale&bots=exclude', { key });
    assert.equal(people.body.total, 6);
    const { key: noAnalytics } = await h.account('links:read');
    assert.equal((await h.request('GET', '/links/stats?tag=spring', { key: noAnalytics })).status, 403);
    assert.equal((await h.request('GET', '/links/stats?tag=spring')).status, 401);
    for (const query of ['', 'tag=', 'tag=a&days=0', 'tag=a&tz=Nowhere', 'tag=a&source=s'])
      assert.deepEqual((await h.request('GET', `/links/stats?${query}`, { key })).body, { error: 'invalid_request' }, query);
  });
});

eachDatabase('a campaign’s unique visitors, days and gaps', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { TRUST_PROXY: '1', FREE_VISITS_PER_MONTH: '7' });
  });
  after(async () => h.close());

  const from = (ip: string, ua = UA.iphone) => ({ 'x-forwarded-for': ip, 'user-agent': ua });
  type TagLink = { id: string; title: string; visitors: number; daily: { date: string; s: number; q: number }[] };

  test('each link’s unique visitors are its stats’ daily ones summed; the campaign counts a person on two links one day once', async () => {
    const { key } = await h.account();
    const make = async (title: string) => (await h.createLink({ target: 'https://example.org/summer', tags: 'summer', title }, { key })).body;
    const [poster, flyer] = [await make('Poster'), await make('Flyer')];
    const yesterday = h.clock.now();
    await visit(h, poster.slug, 2, { path: 'q', headers: from('198.51.100.1') });
    await visit(h, poster.slug, 1, { headers: from('198.51.100.2') });
    await visit(h, flyer.slug, 1, { headers: from('198.51.100.1') });
    await h.app.visitRecorder.flush();
    h.clock.advance(86_400_000);
    await visit(h, poster.slug, 1, { headers: from('198.51.100.1') });
    await visit(h, flyer.slug, 1, { path: 'q', headers: from('198.51.100.3') });
    await visit(h, flyer.slug, 1, { headers: from('198.51.100.4', UA.googlebot) });
    await h.app.visitRecorder.flush();
    for (const bots of ['exclude', 'include']) {
      const res = await h.request('GET', `/links/stats?tag=summer&days=2&bots=${bots}`, { key });
      assert.equal(res.status, 200, res.text);
      for (const link of res.body.links as TagLink[]) {
        const own = await stats(h, link.id, key, `?days=2&bots=${bots}`);
        assert.equal(
          link.visitors,
          own.daily.reduce((n: number, d: Daily) => n + d.visitors, 0),
          `${link.title}, bots ${bots}`,
        );
        assert.deepEqual(
          link.daily,
          own.daily.map((d: Daily) => ({ date: d.date, s: d.s, q: d.q })),
          `${link.title}, bots ${bots}`,
        );
      }
    }
    const people = (await h.request('GET', '/links/stats?tag=summer&days=2&bots=exclude', { key })).body;
    assert.deepEqual(
      people.links.map((l: TagLink) => [l.title, l.daily.map((d) => [d.s, d.q])]),
      [
        [
          'Poster',
          [
            [1, 2],
            [1, 0],
          ],
        ],
        [
          'Flyer',
          [
            [1, 0],
            [0, 1],
          ],
        ],
      ],
    );
    const sameDay = [
      await estimateOf(
        h,
        [
          ['198.51.100.1', UA.iphone],
          ['198.51.100.2', UA.iphone],
        ],
        yesterday,
      ),
      await estimateOf(h, [
        ['198.51.100.1', UA.iphone],
        ['198.51.100.3', UA.iphone],
      ]),
    ];
    assert.equal(people.visitors, sameDay[0]! + sameDay[1]!, 'the first visitor used both links yesterday and counts once that day');
    assert.deepEqual(people.gaps, []);
  });

  test('with tz, a UTC day’s visitors are on the local date of its visits, for the campaign as for its link', async () => {
    const { key } = await h.account();
    const night = (await h.createLink({ target: 'https://example.org/night', tags: 'night', title: 'Night' }, { key })).body;
    // 20:00 UTC on the 16th is 01:30 on the 17th in Kolkata: the UTC day's name is outside a window of the 17th.
    h.clock.ms = Date.parse('2026-11-16T20:00:00Z');
    await visit(h, night.slug, 2, { headers: from('198.51.100.9') });
    await h.app.visitRecorder.flush();
    h.clock.ms = Date.parse('2026-11-17T12:00:00Z');
    const own = await stats(h, night.id, key, '?days=1&tz=Asia/Kolkata');
    const tag = (await h.request('GET', '/links/stats?tag=night&days=1&tz=Asia/Kolkata', { key })).body;
    assert.deepEqual([own.daily[0].date, own.total, own.daily[0].visitors], ['2026-11-17', 2, 1]);
    assert.deepEqual([tag.total, tag.links[0].visitors, tag.visitors], [2, 1, 1]);
  });

  test('the gaps of the campaign’s links are its gaps, each naming its link; other accounts’ are not', async () => {
    const { key } = await h.account();
    const made = (await h.createLink({ target: 'https://example.org/winter', tags: 'winter', title: 'Window' }, { key })).body;
    const stranger = await h.account();
    const theirs = (await h.createLink({ target: 'https://example.org/winter', tags: 'winter' }, { key: stranger.key })).body;
    await visit(h, made.slug, 9);
    await visit(h, theirs.slug, 9);
    await h.app.visitRecorder.flush();
    const body = (await h.request('GET', '/links/stats?tag=winter&days=2', { key })).body;
    const own = await stats(h, made.id, key, '?days=2');
    assert.deepEqual([body.links[0].total, own.total], [7, 7]);
    assert.deepEqual(
      body.gaps,
      own.gaps.map((g: object) => ({ ...g, linkId: made.id })),
    );
    assert.equal(body.gaps[0].reason, 'allowance_used_up');
  });
});
