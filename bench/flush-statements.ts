/**
 * npm run bench:flush — what the statements of one flush that grow with its accounts and links cost,
 * on SQLite and on PostgreSQL (when reachable at BENCH_POSTGRES_URL, default the local server). Per
 * round one transaction as a flush holds it (the day's row locked first), for 10, 100 and 1,000
 * accounts or links:
 *
 * - allowances: every account's share taken from its free visits. Baseline: grantAccounts called
 *   once per account (the path when the day's ceiling binds); against it one call for them all
 *   (store/visit-allowance.ts).
 * - allowances used up: the same with no free visits left and no packs (every flush of accounts
 *   past their allowance).
 * - gaps: every link refused, each extending its gap of the last flush (a flush past the daily
 *   ceiling). Baseline: one statement per link (addGapsOneByOne, below); against it addGaps
 *   (store/visit-gaps.ts).
 *
 * The two alternate round by round on the same rows; medians over BENCH_ROUNDS (20) rounds each.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, type Transaction } from 'kysely';
import type { Shortfall } from '../src/analytics/ports.js';
import { analyticsDb, type AnalyticsDB } from '../src/analytics/store/analytics-schema.js';
import { openDatabase } from '../src/platform/database/database.js';
import { ensureMonths, grantAccounts, lockDay } from '../src/analytics/store/visit-allowance.js';
import { addGaps, GAP_MERGE_MS } from '../src/analytics/store/visit-gaps.js';
import { postgresUrl } from './postgres.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const SIZES = [10, 100, 1000];
const DAY = '2026-11-22';
const MONTH = DAY.slice(0, 7);
const FREE = 1_000_000_000;

type Tx = Transaction<AnalyticsDB>;

/** The baseline of the gaps: a flush's gap statements one link at a time. */
async function addGapsOneByOne(tx: Tx, gaps: Shortfall[]): Promise<void> {
  for (const gap of gaps) {
    const extended = await tx
      .updateTable('visit_gaps')
      .set({
        from_ms: sql<number>`case when from_ms > ${gap.from} then ${gap.from} else from_ms end`,
        to_ms: sql<number>`case when to_ms < ${gap.to} then ${gap.to} else to_ms end`,
      })
      .where('link_id', '=', gap.linkId)
      .where('reason', '=', gap.reason)
      .where('to_ms', '>=', gap.from - GAP_MERGE_MS)
      .executeTakeFirst();
    if (Number(extended.numUpdatedRows) > 0) continue;
    await tx.insertInto('visit_gaps').values({ id: crypto.randomUUID(), link_id: gap.linkId, reason: gap.reason, from_ms: gap.from, to_ms: gap.to }).execute();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(label: string, url: string): Promise<void> {
  const database = await openDatabase(url, { checkpoints: false });
  const db = analyticsDb(database.db);
  const { dialect } = database;
  let now = Date.now();
  try {
    for (const size of SIZES) {
      const accounts = Array.from({ length: size }, () => crypto.randomUUID()).sort();
      await ensureMonths(db, dialect, MONTH, accounts);
      const wants = accounts.map((account): [string, number] => [account, 1]);
      const links = Array.from({ length: size }, () => crypto.randomUUID()).sort();
      const refusals = (): Shortfall[] => links.map((linkId) => ({ linkId, reason: 'daily_ceiling_reached', count: 3, from: now - 1000, to: now }));
      const cases = {
        'allowances, one statement per account': async (tx: Tx) => {
          for (const [account, n] of wants) await grantAccounts(tx, dialect, MONTH, [[account, n]], FREE);
        },
        'allowances, grantAccounts': (tx: Tx) => grantAccounts(tx, dialect, MONTH, wants, FREE),
        'used up, one statement per account': async (tx: Tx) => {
          for (const [account, n] of wants) await grantAccounts(tx, dialect, MONTH, [[account, n]], 0);
        },
        'used up, grantAccounts': (tx: Tx) => grantAccounts(tx, dialect, MONTH, wants, 0),
        'gaps, one statement per link': (tx: Tx) => addGapsOneByOne(tx, refusals()),
        'gaps, addGaps': (tx: Tx) => addGaps(tx, dialect, refusals()),
      };
      const times = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
      for (let round = -3; round < ROUNDS; round++) {
        for (const [name, work] of Object.entries(cases)) {
          now += 1000;
          const start = process.hrtime.bigint();
          await db.transaction().execute(async (tx) => {
            await lockDay(tx, DAY);
            await work(tx);
          });
          if (round >= 0) times.get(name)!.push(Number(process.hrtime.bigint() - start) / 1e6);
        }
      }
      const m = (name: string) => median(times.get(name)!);
      const row = (what: string, before: number, after: number) =>
        console.log(`| ${label} | ${what} | ${size} | ${before.toFixed(2)} ms | ${after.toFixed(2)} ms | ${(before / after).toFixed(1)}× |`);
      row('allowances', m('allowances, one statement per account'), m('allowances, grantAccounts'));
      row('allowances used up', m('used up, one statement per account'), m('used up, grantAccounts'));
      row('gaps', m('gaps, one statement per link'), m('gaps, addGaps'));
    }
  } finally {
    await database.close();
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-flush-'));
console.log(`${ROUNDS} rounds each, medians; one transaction per round`);
console.log('| database | statements for | accounts or links in the flush | one statement each (before) | set-based (now) | speed-up |');
console.log('|---|---|---|---|---|---|');
try {
  await run('SQLite', `sqlite:${path.join(dir, 'flush.db')}`);
  const pg = await postgresUrl('bench_flush');
  if (pg === undefined) console.log('PostgreSQL unreachable: skipped');
  else {
    try {
      await run('PostgreSQL', pg.url);
    } finally {
      await pg.drop();
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
