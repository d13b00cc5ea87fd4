/**
 * npm run bench:rollup — what one roll-up costs an instance with 10,000 busy links, on SQLite and on
 * PostgreSQL (when reachable at BENCH_POSTGRES_URL, default the local server): a fresh
 * database (bench/redirect/seed.ts), then per round 15 flushes of 40,000 visits each (15 s of the
 * redirect benchmark's traffic: random links, ten countries, three visitor classes, eight referrers;
 * BENCH_FLUSHES and BENCH_VISITS_PER_FLUSH change the counts) through the real flush, then one
 * roll-up (store/rollup.ts). Reported per round: the roll-up's wall time and, on SQLite, the bytes it
 * added to the write-ahead log (automatic checkpoints off, the log emptied before each roll-up), since
 * every log page is written twice (log, then database at checkpoint) and checkpoints stall the
 * connection that commits. Round 1 creates the day's rollup rows, later rounds update them, as every
 * roll-up but the first of a day does. Then the first roll-up after midnight,
 * which adds the finished day to the 7- and 28-day spans (one transaction; on SQLite it holds the
 * writing connection meanwhile).
 *
 * Baseline in the same run (SQLite): what updating `links.visits` in each of the 64 passes (as
 * roll-ups did before migration 0009) adds to the log, for the same links.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { DayVisits } from '../src/analytics/day-visits.js';
import type { VisitClass } from '../src/analytics/ports.js';
import { DAY_MS, utcDay } from '../src/platform/time.js';
import { analyticsDb } from '../src/analytics/store/analytics-schema.js';
import { openDatabase } from '../src/platform/database/database.js';
import { BUCKETS, bucketOf } from '../src/analytics/store/journal.js';
import { rollUp } from '../src/analytics/store/rollup.js';
import { KyselyVisitStore } from '../src/analytics/store/visit-store.js';
import { PG_ADMIN, postgresUrl } from './postgres.js';
import { seedLinks } from './redirect/seed.js';

const LINKS = 10_000;
const FLUSHES = Number(process.env.BENCH_FLUSHES ?? 15);
const VISITS_PER_FLUSH = Number(process.env.BENCH_VISITS_PER_FLUSH ?? 40_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const COUNTRIES = ['DE', 'FR', 'US', 'GB', 'NL', 'ES', 'IT', 'PL', 'SE', 'unknown'];
const REFERRERS = ['direct', 'a.example', 'b.example', 'news.example', 'mail.example', 'x.example', 'y.example', 'z.example'];
const CLASSES: VisitClass[] = [
  { device: 'mobile', browser: 'Mobile Safari', bot: false },
  { device: 'desktop', browser: 'Chrome', bot: false },
  { device: 'bot', browser: 'Googlebot', bot: true },
];

/** Rounds of flushes and a roll-up on one database; with `sqliteFile`, the log each roll-up wrote too. */
async function run(label: string, url: string, sqliteFile?: string): Promise<void> {
  await seedLinks(url, LINKS);
  // No checkpoint thread: it would copy the log back into the file while a roll-up writes it, and the
  // log's size would no longer be what the roll-up wrote.
  const database = await openDatabase(url, { checkpoints: false });
  const db = analyticsDb(database.db);
  const links = await db.selectFrom('links').select(['id', 'account_id']).execute();
  const store = new KyselyVisitStore(database);
  const logBytes = () => (sqliteFile && fs.existsSync(`${sqliteFile}-wal`) ? fs.statSync(`${sqliteFile}-wal`).size : 0);
  const emptyLog = async () => {
    if (sqliteFile) await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
  };
  if (sqliteFile) await sql`pragma wal_autocheckpoint = 0`.execute(database.db);
  const now = Date.now();
  const limits = { freeVisitsPerMonth: 1e12, trackingDailyLimit: 1e12 };
  for (let round = 1; round <= ROUNDS; round++) {
    for (let f = 0; f < FLUSHES; f++) {
      const day = new DayVisits(utcDay(now), now, VISITS_PER_FLUSH);
      for (let i = 0; i < VISITS_PER_FLUSH; i++) {
        const link = links[Math.floor(Math.random() * links.length)]!;
        day.add(link.id, link.account_id, i % 3 === 0 ? 'q' : 's', COUNTRIES[i % COUNTRIES.length]!, CLASSES[i % CLASSES.length]!, REFERRERS[(i * 7) % REFERRERS.length]!);
      }
      await store.flush({ instanceId: 'bench', startedAt: now, now, days: [day], dropped: [], limits });
    }
    await emptyLog();
    const started = performance.now();
    await rollUp(db, database.dialect, now);
    const log = sqliteFile ? `, ${(logBytes() / 1e6).toFixed(1)} MB of log` : '';
    console.log(`${label} round ${round}: roll-up of ${FLUSHES * VISITS_PER_FLUSH} visits ${(performance.now() - started).toFixed(0)} ms${log}`);
  }
  // The first roll-up after midnight adds the finished day's rows to the spans (foldFinishedDays).
  await emptyLog();
  const folding = performance.now();
  await rollUp(db, database.dialect, now + DAY_MS);
  const foldLog = sqliteFile ? `, ${(logBytes() / 1e6).toFixed(1)} MB of log` : '';
  console.log(`${label} the day's ${LINKS} links folded into their spans after midnight: ${(performance.now() - folding).toFixed(0)} ms${foldLog}`);
  if (sqliteFile) {
    await emptyLog();
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      const ids = links.filter((l) => bucketOf(l.id) === bucket).map((l) => l.id);
      await db.transaction().execute((tx) => sql`update links set visits = visits + 1 where id in (${sql.join(ids)})`.execute(tx));
    }
    console.log(`${label} baseline, links.visits updated in each of ${BUCKETS} passes: ${(logBytes() / 1e6).toFixed(1)} MB of log`);
  }
  await database.close();
}

console.log(`${LINKS} links, ${FLUSHES} flushes of ${VISITS_PER_FLUSH} visits per round`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-rollup-'));
try {
  const file = path.join(dir, 'bench.db');
  await run('SQLite', `sqlite:${file}`, file);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
const pgDb = await postgresUrl('bench_rollup');
if (pgDb) {
  try {
    await run('PostgreSQL', pgDb.url);
  } finally {
    await pgDb.drop();
  }
} else {
  console.log(`PostgreSQL: not reachable at ${PG_ADMIN}, skipped`);
}
