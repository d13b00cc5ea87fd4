/**
 * npm run bench:grants — what the allowance statements of one flush cost (store/visit-allowance.ts)
 * as the number of accounts with visits in it grows, on SQLite and on PostgreSQL (when reachable at
 * BENCH_POSTGRES_URL, default the local server). Per round one transaction as a flush holds it: the
 * day's row locked, then every account's share taken from its free visits. The baseline in the same
 * run is grantAccount, one statement per account (every flush before the eighth session); against it
 * grantAccounts, one statement for them all (and on PostgreSQL one more that locks the rows in order).
 * The two alternate, round by round, on the same rows; medians over BENCH_ROUNDS (20) rounds each.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyticsDb } from '../src/store/analytics-schema.js';
import { openDatabase } from '../src/store/database.js';
import { ensureMonths, grantAccount, grantAccounts, lockDay } from '../src/store/visit-allowance.js';
import { postgresUrl } from './postgres.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const SIZES = [10, 100, 1000];
const DAY = '2026-11-22';
const MONTH = DAY.slice(0, 7);
const FREE = 1_000_000_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(label: string, url: string): Promise<void> {
  const database = await openDatabase(url, { checkpoints: false });
  const db = analyticsDb(database.db);
  try {
    for (const size of SIZES) {
      const accounts = Array.from({ length: size }, () => crypto.randomUUID()).sort();
      await ensureMonths(db, database.dialect, MONTH, accounts);
      const wants = accounts.map((account): [string, number] => [account, 1]);
      const each = async () =>
        db.transaction().execute(async (tx) => {
          await lockDay(tx, DAY);
          for (const [account, n] of wants) await grantAccount(tx, database.dialect, account, MONTH, n, FREE);
        });
      const all = async () =>
        db.transaction().execute(async (tx) => {
          await lockDay(tx, DAY);
          await grantAccounts(tx, database.dialect, MONTH, wants, FREE);
        });
      const times = { each: [] as number[], all: [] as number[] };
      for (let round = -3; round < ROUNDS; round++) {
        for (const [name, flush] of [['each', each], ['all', all]] as const) {
          const start = process.hrtime.bigint();
          await flush();
          if (round >= 0) times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
        }
      }
      const [a, b] = [median(times.each), median(times.all)];
      console.log(`| ${label} | ${size} | ${a.toFixed(2)} ms | ${b.toFixed(2)} ms | ${(a / b).toFixed(1)}× |`);
    }
  } finally {
    await database.close();
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-grants-'));
console.log(`${ROUNDS} rounds each, medians; one transaction per round`);
console.log('| database | accounts in the flush | one statement per account | one for all | speed-up |');
console.log('|---|---|---|---|---|');
try {
  await run('SQLite', `sqlite:${path.join(dir, 'grants.db')}`);
  const pg = await postgresUrl('bench_grants');
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
