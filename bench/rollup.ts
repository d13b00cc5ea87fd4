/**
 * npm run bench:rollup — what one roll-up costs an instance on SQLite with 10,000 busy links: a fresh
 * database (bench/redirect/seed.ts), then per round 15 flushes of 40,000 visits each (15 s of the
 * redirect benchmark's traffic: random links, ten countries, three visitor classes, eight referrers)
 * through the real flush, then one roll-up (store/rollup.ts). Reported per round: the roll-up's wall
 * time and the bytes it added to SQLite's write-ahead log (automatic checkpoints off, the log emptied
 * before each roll-up), since every log page is written twice (log, then database at checkpoint) and
 * checkpoints stall the connection that commits. Round 1 creates the day's rollup rows, later rounds
 * update them, as every roll-up but the first of a day does.
 *
 * Baseline in the same run: what updating `links.visits` in each of the 64 passes (as roll-ups did
 * before migration 0009) adds to the log, for the same links.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { DayVisits, VisitClass } from '../src/domain/analytics/ports.js';
import { utcDay } from '../src/domain/time.js';
import { analyticsDb } from '../src/store/analytics-schema.js';
import { openDatabase } from '../src/store/database.js';
import { BUCKETS, bucketOf } from '../src/store/journal.js';
import { rollUp } from '../src/store/rollup.js';
import { KyselyVisitStore } from '../src/store/visit-store.js';
import { seedLinks } from './redirect/seed.js';

const LINKS = 10_000;
const FLUSHES = 15;
const VISITS_PER_FLUSH = 40_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const COUNTRIES = ['DE', 'FR', 'US', 'GB', 'NL', 'ES', 'IT', 'PL', 'SE', 'unknown'];
const REFERRERS = ['direct', 'a.example', 'b.example', 'news.example', 'mail.example', 'x.example', 'y.example', 'z.example'];
const CLASSES: VisitClass[] = [
  { device: 'mobile', browser: 'Mobile Safari', bot: false },
  { device: 'desktop', browser: 'Chrome', bot: false },
  { device: 'bot', browser: 'Googlebot', bot: true },
];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-rollup-'));
const file = path.join(dir, 'bench.db');
try {
  await seedLinks(`sqlite:${file}`, LINKS);
  const database = await openDatabase(`sqlite:${file}`);
  const db = analyticsDb(database.db);
  const links = await db.selectFrom('links').select(['id', 'account_id']).execute();
  const store = new KyselyVisitStore(database);
  const logBytes = () => (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);
  const emptyLog = () => sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
  await sql`pragma wal_autocheckpoint = 0`.execute(database.db);
  const now = Date.now();
  const limits = { freeVisitsPerMonth: 1e12, trackingDailyLimit: 1e12 };
  console.log(`${LINKS} links, ${FLUSHES} flushes of ${VISITS_PER_FLUSH} visits per round; SQLite at ${file}`);
  for (let round = 1; round <= ROUNDS; round++) {
    for (let f = 0; f < FLUSHES; f++) {
      const day: DayVisits = { day: utcDay(now), from: now, links: [], accounts: [], sources: [], countries: [], classes: [], referrers: [] };
      for (let i = 0; i < VISITS_PER_FLUSH; i++) {
        const link = links[Math.floor(Math.random() * links.length)]!;
        day.links.push(link.id);
        day.accounts.push(link.account_id);
        day.sources.push(i % 3 === 0 ? 'q' : 's');
        day.countries.push(COUNTRIES[i % COUNTRIES.length]!);
        day.classes.push(CLASSES[i % CLASSES.length]!);
        day.referrers.push(REFERRERS[(i * 7) % REFERRERS.length]!);
      }
      await store.flush({ instanceId: 'bench', startedAt: now, now, days: [day], dropped: [], limits });
    }
    await emptyLog();
    const started = performance.now();
    await rollUp(db, 'sqlite', now);
    console.log(`round ${round}: roll-up of ${FLUSHES * VISITS_PER_FLUSH} visits ${(performance.now() - started).toFixed(0)} ms, ${(logBytes() / 1e6).toFixed(1)} MB of log`);
  }
  await emptyLog();
  for (let bucket = 0; bucket < BUCKETS; bucket++) {
    const ids = links.filter((l) => bucketOf(l.id) === bucket).map((l) => l.id);
    await db.transaction().execute((tx) => sql`update links set visits = visits + 1 where id in (${sql.join(ids)})`.execute(tx));
  }
  console.log(`baseline, links.visits updated in each of ${BUCKETS} passes: ${(logBytes() / 1e6).toFixed(1)} MB of log`);
  await database.close();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
