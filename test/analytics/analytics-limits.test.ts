import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import { addGaps } from '../../src/analytics/store/visit-gaps.js';
import { KyselyVisitAllowance } from '../../src/billing/visit-allowance.js';
import { eachDatabase, type DatabaseKind } from '../helpers/databases.js';
import { Harness } from '../helpers/harness.js';
import { linkWithKey, recordingOf, stats, visit } from '../helpers/analytics.js';

const DAY = 86_400_000;
const ENV = { FREE_VISITS_PER_MONTH: '5', TRACKING_DAILY_LIMIT: '12', TRACKING_DAILY_BOT_LIMIT: '4', COUNTRY_HEADER: 'CF-IPCountry' };

/**
 * Three rounds, each on a UTC day of its own: three new accounts get 8 visits each, 4 through `h` and
 * 4 through a second instance on the same database, both flush at once, then `check` reads the round.
 */
async function splitOverTwoInstances(
  h: Harness,
  kind: DatabaseKind,
  env: Record<string, string>,
  check: (links: Awaited<ReturnType<typeof linkWithKey>>[], round: number) => Promise<void>,
): Promise<void> {
  const h2 = await Harness.start(kind, env, h.database);
  try {
    for (let round = 0; round < 3; round++) {
      h.clock.advance(DAY);
      h2.clock.ms = h.clock.ms;
      const links = [await linkWithKey(h), await linkWithKey(h), await linkWithKey(h)];
      await Promise.all(links.flatMap((l) => [visit(h, l.slug, 4), visit(h2, l.slug, 4)]));
      await Promise.all([h.app.visitRecorder.flush(), h2.app.visitRecorder.flush()]);
      await check(links, round);
    }
  } finally {
    await h2.close({ keepDatabase: true });
  }
}

eachDatabase('recording allowance and daily ceiling', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, ENV);
  });
  after(async () => h.close());
  // The ceiling is service-wide: each test records on a UTC day of its own.
  beforeEach(() => h.clock.advance(DAY));

  const addPack = (accountId: string, createdAt: number, status = 'active') =>
    h.database.db
      .insertInto('capacity_packs')
      .values({ id: crypto.randomUUID(), account_id: accountId, status, credits: 50, visits: 10_000, visits_used: 0, created_at: createdAt, refunded_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();

  test('an account records exactly its free visits of the month, then a gap says the allowance is used up', async () => {
    const link = await linkWithKey(h);
    const sibling = await h.createLink({ target: 'https://example.org/other' }, { key: link.key });
    await visit(h, link.slug, 4);
    await visit(h, sibling.body.slug, 4);
    await h.app.visitRecorder.flush();
    const first = await stats(h, link.id, link.key);
    const second = await stats(h, sibling.body.id, link.key);
    assert.equal(first.total + second.total, 5);
    assert.equal(first.total, 4);
    assert.deepEqual(first.gaps, []);
    assert.equal(second.gaps.length, 1);
    assert.equal(second.gaps[0].reason, 'allowance_used_up');
    assert.ok(second.gaps[0].from <= h.clock.now() && second.gaps[0].to >= h.clock.now());
    h.clock.advance(60_000);
    await visit(h, sibling.body.slug, 2);
    const later = await stats(h, sibling.body.id, link.key);
    assert.equal(later.total, 1);
    assert.equal(later.gaps.length, 1, 'a refusal soon after extends the same gap');
    assert.equal(later.gaps[0].to, h.clock.now());
    const usage = await recordingOf(h.database, link.accountId, '2026-11', 5);
    assert.deepEqual(usage, { recordedThisMonth: 5, freeLeft: 0, packsLeft: 0 });
  });

  test('a bot flood is bounded by its own daily ceiling and leaves the one people need untouched', async () => {
    const link = await linkWithKey(h);
    const bot = { 'user-agent': 'curl/8.5.0' };
    await visit(h, link.slug, 9, { headers: bot });
    await visit(h, link.slug, 3);
    const body = await stats(h, link.id, link.key);
    assert.equal(body.daily.at(-1).bots, 4, 'the bot ceiling');
    assert.equal(body.total - body.daily.at(-1).bots, 3, 'people still recorded');
    assert.deepEqual(
      body.gaps.map((g: { reason: string }) => g.reason),
      ['bot_ceiling_reached'],
    );
    assert.deepEqual((await stats(h, link.id, link.key, '?bots=exclude')).gaps, [], 'bot gaps are not shown when bots are left out');
  });

  test('what an account cannot take of the day goes on to the accounts after it: a visit is refused for the ceiling only when the day is full', async () => {
    // Two accounts, in the order a flush shares the day's ceiling out (ascending ids).
    const [first, second] = [await linkWithKey(h), await linkWithKey(h)].sort((a, b) => (a.accountId < b.accountId ? -1 : 1)) as [
      Awaited<ReturnType<typeof linkWithKey>>,
      Awaited<ReturnType<typeof linkWithKey>>,
    ];
    await visit(h, first.slug, 4);
    await h.app.visitRecorder.flush();
    // The day has 8 of its 12 left, the first account 1 of its 5. In one flush the first asks 6, the second 5.
    await Promise.all([visit(h, first.slug, 6), visit(h, second.slug, 5)]);
    const [a, b] = [await stats(h, first.id, first.key), await stats(h, second.id, second.key)];
    assert.equal(a.total, 5);
    assert.deepEqual(
      a.gaps.map((g: { reason: string }) => g.reason),
      ['allowance_used_up'],
    );
    assert.equal(b.total, 5, "the day had room for all the second account's visits");
    assert.deepEqual(b.gaps, []);
  });

  test('capacity packs extend recording, oldest active pack first', async () => {
    const link = await linkWithKey(h);
    await addPack(link.accountId, 1, 'refunded');
    const older = await addPack(link.accountId, 2);
    const newer = await addPack(link.accountId, 3);
    await visit(h, link.slug, 12);
    const body = await stats(h, link.id, link.key);
    assert.equal(body.total, 12);
    assert.deepEqual(body.gaps, []);
    const packs = await h.database.db.selectFrom('capacity_packs').select(['id', 'visits_used']).where('account_id', '=', link.accountId).execute();
    const used = Object.fromEntries(packs.map((p) => [p.id, Number(p.visits_used)]));
    assert.equal(used[older.id], 7);
    assert.equal(used[newer.id], 0);
    const usage = await recordingOf(h.database, link.accountId, '2026-11', 5);
    assert.deepEqual(usage, { recordedThisMonth: 12, freeLeft: 0, packsLeft: 20_000 - 7 });
  });

  test('the daily ceiling is service-wide: exactly the ceiling is recorded, then a gap says it was reached', async () => {
    const links = [await linkWithKey(h), await linkWithKey(h), await linkWithKey(h)];
    await Promise.all(links.map((l) => visit(h, l.slug, 5)));
    const all = await Promise.all(links.map((l) => stats(h, l.id, l.key)));
    assert.equal(
      all.reduce((n, s) => n + s.total, 0),
      12,
    );
    for (const s of all) {
      if (s.total === 5) assert.deepEqual(s.gaps, []);
      else
        assert.deepEqual(
          s.gaps.map((g: { reason: string }) => g.reason),
          ['daily_ceiling_reached'],
        );
    }
    h.clock.advance(DAY);
    const fresh = await linkWithKey(h);
    await visit(h, fresh.slug, 3);
    assert.equal((await stats(h, fresh.id, fresh.key)).total, 3, 'the ceiling resets at midnight UTC');
  });

  test('two instances flushing one database at once never record more than allowed', async () => {
    // The accounts allow 15, the ceiling 12.
    await splitOverTwoInstances(h, kind, ENV, async (links, round) => {
      const totals = await Promise.all(links.map(async (l) => (await stats(h, l.id, l.key)).total));
      assert.equal(
        totals.reduce((a, b) => a + b, 0),
        12,
        `round ${round}: ${totals.join(', ')}`,
      );
      for (const t of totals) assert.ok(t <= 5, `round ${round}: an account recorded ${t} of 5`);
    });
  });

  test('every refused link has a gap of its own, extended by later refusals and new after an hour', async () => {
    const { key, accountId } = await h.account();
    const links: { id: string; slug: string }[] = [];
    for (let i = 0; i < 12; i++) links.push((await h.createLink({ target: `https://example.org/${i}` }, { key })).body);
    const gapsOf = () =>
      h.database.db
        .selectFrom('visit_gaps')
        .select(['link_id', 'from_ms', 'to_ms'])
        .where(
          'link_id',
          'in',
          links.map((l) => l.id),
        )
        .orderBy('from_ms')
        .execute();
    // One visit each in one flush: 5 recorded (the allowance), 7 refused.
    await Promise.all(links.map((l) => visit(h, l.slug, 1)));
    await h.app.visitRecorder.flush();
    const first = await gapsOf();
    assert.equal(first.length, 7);
    assert.equal(new Set(first.map((g) => g.link_id)).size, 7);
    h.clock.advance(60_000);
    await Promise.all(links.map((l) => visit(h, l.slug, 1)));
    await h.app.visitRecorder.flush();
    const second = await gapsOf();
    assert.equal(second.length, 12, 'the 7 gaps extended, 5 new ones');
    assert.equal(second.filter((g) => Number(g.to_ms) === h.clock.now()).length, 12);
    h.clock.advance(2 * 3_600_000);
    await visit(h, links[0]!.slug, 1);
    await h.app.visitRecorder.flush();
    const third = await gapsOf();
    assert.equal(third.length, 13, 'a refusal two hours later starts a new gap');
    assert.equal(third.filter((g) => g.link_id === links[0]!.id).length, 2);
    assert.deepEqual(await recordingOf(h.database, accountId, new Date(h.clock.now()).toISOString().slice(0, 7), 5), {
      recordedThisMonth: 5,
      freeLeft: 0,
      packsLeft: 0,
    });
  });

  test('a link refused on both days of one flush gets one gap; gaps of every link are never extended', async () => {
    const link = await linkWithKey(h);
    const db = h.database.db;
    const t = h.clock.now();
    await db.transaction().execute(async (tx) => {
      await addGaps(tx, h.database.dialect, [
        { linkId: link.id, reason: 'allowance_used_up', count: 2, from: t - 1000, to: t },
        { linkId: null, reason: 'recording_unavailable', count: 1, from: t - 500, to: t },
        { linkId: link.id, reason: 'allowance_used_up', count: 3, from: t - 2000, to: t - 100 },
      ]);
    });
    await db.transaction().execute(async (tx) => {
      await addGaps(tx, h.database.dialect, [{ linkId: null, reason: 'recording_unavailable', count: 1, from: t, to: t + 10 }]);
    });
    const own = await db.selectFrom('visit_gaps').select(['from_ms', 'to_ms']).where('link_id', '=', link.id).execute();
    assert.deepEqual(
      own.map((g) => [Number(g.from_ms), Number(g.to_ms)]),
      [[t - 2000, t]],
    );
    const everyLink = await db
      .selectFrom('visit_gaps')
      .select('from_ms')
      .where('link_id', 'is', null)
      .where('from_ms', '>=', t - 500)
      .execute();
    assert.equal(everyLink.length, 2);
  });

  test('the country comes from the trusted edge header when one is configured', async () => {
    const link = await linkWithKey(h);
    await visit(h, link.slug, 2, { headers: { 'cf-ipcountry': 'de' } });
    await visit(h, link.slug, 1, { headers: { 'cf-ipcountry': 'not-a-country' } });
    await visit(h, link.slug, 1);
    const body = await stats(h, link.id, link.key);
    assert.deepEqual(body.countries, [
      { country: 'DE', count: 2 },
      { country: 'unknown', count: 2 },
    ]);
  });
});

eachDatabase('allowances of many accounts in one flush', (kind) => {
  // A ceiling that does not bind: every account is offered all its visits at once (billing/visit-allowance.ts, grant).
  const env = { FREE_VISITS_PER_MONTH: '5', TRACKING_DAILY_LIMIT: '100000' };
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, env);
  });
  after(async () => h.close());
  beforeEach(() => h.clock.advance(DAY));

  const recording = (accountId: string) => recordingOf(h.database, accountId, new Date(h.clock.now()).toISOString().slice(0, 7), 5);

  test('each account gets exactly its own free visits and packs, new month rows included', async () => {
    const links: Awaited<ReturnType<typeof linkWithKey>>[] = [];
    for (let i = 0; i < 24; i++) links.push(await linkWithKey(h));
    const group = (from: number, to: number) => links.slice(from, to);
    // Earlier this month: 3 free visits used by the first six, all five by the rest but six new ones.
    await Promise.all([...group(0, 6).map((l) => visit(h, l.slug, 3)), ...group(12, 24).map((l) => visit(h, l.slug, 5))]);
    await h.app.visitRecorder.flush();
    for (const l of group(12, 18)) {
      await h.database.db
        .insertInto('capacity_packs')
        .values({
          id: crypto.randomUUID(),
          account_id: l.accountId,
          status: 'active',
          credits: 50,
          visits: 10_000,
          visits_used: 0,
          created_at: 1,
          refunded_at: null,
        })
        .execute();
    }
    // One flush: 4 visits for every account.
    await Promise.all(links.map((l) => visit(h, l.slug, 4)));
    await h.app.visitRecorder.flush();
    const expect = [
      ...group(0, 6).map(() => ({ recordedThisMonth: 5, freeLeft: 0, packsLeft: 0, refused: 2 })),
      ...group(6, 12).map(() => ({ recordedThisMonth: 4, freeLeft: 1, packsLeft: 0, refused: 0 })),
      ...group(12, 18).map(() => ({ recordedThisMonth: 9, freeLeft: 0, packsLeft: 10_000 - 4, refused: 0 })),
      ...group(18, 24).map(() => ({ recordedThisMonth: 5, freeLeft: 0, packsLeft: 0, refused: 4 })),
    ];
    for (const [i, l] of links.entries()) {
      const body = await stats(h, l.id, l.key);
      const { refused, ...usage } = expect[i]!;
      assert.deepEqual(await recording(l.accountId), usage, `account ${i}`);
      assert.equal(body.total, usage.recordedThisMonth, `account ${i}`);
      assert.deepEqual(
        body.gaps.map((g: { reason: string }) => g.reason),
        refused > 0 ? ['allowance_used_up'] : [],
        `account ${i}`,
      );
    }
  });

  test('an account without a month row when its flush runs gets one, then its free visits and packs', async () => {
    const [withPack, without] = [await linkWithKey(h), await linkWithKey(h)];
    await h.database.db
      .insertInto('capacity_packs')
      .values({
        id: crypto.randomUUID(),
        account_id: withPack.accountId,
        status: 'active',
        credits: 50,
        visits: 10,
        visits_used: 0,
        created_at: 1,
        refunded_at: null,
      })
      .execute();
    const month = new Date(h.clock.now()).toISOString().slice(0, 7);
    const wants: [string, number][] = [
      [withPack.accountId, 8],
      [without.accountId, 8],
    ].sort(([a], [b]) => (a! < b! ? -1 : 1)) as [string, number][];
    const granted = await h.database.db.transaction().execute(async (tx) => {
      // The month rows a flush of one day of the month with these accounts' visits makes and locks.
      const allowance = new KyselyVisitAllowance(h.database);
      await allowance.lockMonths(
        tx,
        wants.map(([accountId, visits]) => ({ month, accountId, visits })),
      );
      return allowance.grant(tx, month, wants, 5);
    });
    assert.deepEqual(Object.fromEntries(granted), { [withPack.accountId]: 8, [without.accountId]: 5 });
    assert.deepEqual(await recording(withPack.accountId), { recordedThisMonth: 8, freeLeft: 0, packsLeft: 7 });
    assert.deepEqual(await recording(without.accountId), { recordedThisMonth: 5, freeLeft: 0, packsLeft: 0 });
  });

  test('two instances flushing at once grant each account exactly its free visits', async () => {
    // Each account allows 5; the ceiling does not bind.
    await splitOverTwoInstances(h, kind, env, async (links, round) => {
      for (const l of links) {
        assert.equal((await stats(h, l.id, l.key)).total, 5, `round ${round}`);
        assert.equal((await recording(l.accountId)).recordedThisMonth, 5, `round ${round}`);
      }
    });
  });
});

eachDatabase('bots and the monthly allowance', (kind) => {
  let h: Harness;
  before(async () => {
    h = await Harness.start(kind, { FREE_VISITS_PER_MONTH: '15' });
  });
  after(async () => h.close());

  test('bots are recorded apart and never charged: 15 free visits, 10 bot and 10 human visits, all 20 recorded, no gap', async () => {
    const { key, accountId } = await h.account();
    const created = await h.createLink({ target: 'https://example.org/bots' }, { key });
    const link = { id: created.body.id as string, slug: created.body.slug as string };
    await visit(h, link.slug, 10, { headers: { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' } });
    await visit(h, link.slug, 10);
    const body = await stats(h, link.id, key);
    assert.equal(body.total, 20);
    assert.equal(body.daily.at(-1).bots, 10);
    assert.deepEqual(body.gaps, []);
    assert.equal((await stats(h, link.id, key, '?bots=exclude')).total, 10);
    const usage = await recordingOf(h.database, accountId, '2026-11', 15);
    assert.equal(usage.recordedThisMonth, 10, 'only the people are charged');
  });
});
