/**
 * npm run bench:flush — what one flush costs an instance at the redirect benchmark's load, on
 * SQLite and on PostgreSQL (when reachable at BENCH_POSTGRES_URL, default the local server): a fresh
 * database with 10,000 links (bench/redirect/seed.ts), then rounds of BENCH_VISITS_PER_FLUSH visits
 * (default 50,000: about a second of that load) recorded and flushed through the real recorder and
 * store, in two phases:
 * - early in a UTC day, with the uniform load's variety (random links, ten countries, three visitor
 *   classes, eight referrers, forty visitors): round 1 creates the day's count rows, later rounds add
 *   to them, as every flush but the first of each hour does;
 * - late in the day (its last quarter hour), after BENCH_LATE_VISITS (default 1,000,000) visits spread
 *   over its earlier quarter hours, with more variety (thirty countries, thirty-two referrers, every
 *   visitor another), its flushes hours apart by the recorder's clock: a flush rewrites each row it
 *   touches whole, and a row holds what its writer counted in the hour (counts.ts, Tallies).
 * Then the compaction (store/compaction.ts): of the rows a day of such flushes left, and of the hour's
 * rows of the 10,000 links once the instance has left their writer, beside the day's compacted rows
 * (the same figures, and the link-days, rows and log per compaction).
 * Reported per round: the flush's wall time (on SQLite nearly all of it is the event loop's: statements
 * run synchronously), the longest the event loop was held at once (what a redirect arriving during the
 * flush may wait) and the bytes it added to the write-ahead log (SQLite's file; PostgreSQL's WAL, the
 * whole server's). Then, for PostgreSQL, the size of `visit_tallies`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { VisitClass } from '../src/analytics/ports.js';
import { VisitRecorder } from '../src/analytics/recorder.js';
import { KyselyRecordingStore } from '../src/analytics/store/recording-store.js';
import { KyselyVisitAllowance } from '../src/billing/visit-allowance.js';
import { openDatabase } from '../src/platform/database/database.js';
import { PG_ADMIN, postgresUrl } from './postgres.js';
import { seedLinks } from './redirect/seed.js';

const LINKS = 10_000;
const VISITS_PER_FLUSH = Number(process.env.BENCH_VISITS_PER_FLUSH ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LATE_VISITS = Number(process.env.BENCH_LATE_VISITS ?? 1_000_000);
const QUARTER_MS = 15 * 60_000;

const COUNTRIES = ['DE', 'FR', 'US', 'GB', 'NL', 'ES', 'IT', 'PL', 'SE', 'unknown'];
const REFERRERS = ['direct', 'a.example', 'b.example', 'news.example', 'mail.example', 'x.example', 'y.example', 'z.example'];
const CLASSES: VisitClass[] = [
  { device: 'mobile', browser: 'Mobile Safari', os: 'iOS', bot: false },
  { device: 'desktop', browser: 'Chrome', os: 'Windows', bot: false },
  { device: 'bot', browser: 'other', os: 'other', bot: true },
];

/**
 * The longest time between two turns of the event loop while it runs: how long a redirect arriving
 * meanwhile could wait for the flush at worst (on SQLite, a statement or the commit; on PostgreSQL,
 * building a statement or handling its result).
 */
function longestHold(): { stop: () => number } {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const turn = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  return {
    stop: () => {
      running = false;
      return Math.max(longest, performance.now() - last);
    },
  };
}

const tableSizes: string[] = [];
const compactions = [
  '| database | compaction of | link-days | rows added up | time | per link-day | longest hold of the event loop | log written |',
  '|---|---|---|---|---|---|---|---|',
];

async function run(label: string, url: string, sqliteFile?: string): Promise<void> {
  await seedLinks(url, LINKS);
  // No checkpoint thread: it would copy the log back into the file meanwhile, and the log's size would
  // no longer be what the flush wrote.
  const database = await openDatabase(url, { checkpoints: false });
  const links = (await database.db.selectFrom('links').select(['id', 'account_id']).execute()).map((l) => ({ id: l.id, accountId: l.account_id }));
  let clock = Date.now();
  const recorder = new VisitRecorder({
    store: new KyselyRecordingStore(database, new KyselyVisitAllowance(database)),
    // The flush's clock, which a phase sets: a day's flushes are hours apart in a few seconds.
    now: () => clock,
    limits: { freeVisitsPerMonth: 1e12, trackingDailyLimit: 1e12, trackingDailyBotLimit: 1e12 },
    flushIntervalMs: 1000,
    heartbeatIntervalMs: 5000,
    bufferMaxVisits: 1e9,
    onError: (error) => console.error(error),
  });
  // SQLite: the size of its write-ahead log (checkpointed empty before each flush); PostgreSQL: the WAL position.
  const logBytes = async () => {
    if (sqliteFile) return fs.existsSync(`${sqliteFile}-wal`) ? fs.statSync(`${sqliteFile}-wal`).size : 0;
    const { rows } = await sql<{ at: string }>`select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') as at`.execute(database.db);
    return Number(rows[0]!.at);
  };
  if (sqliteFile) await sql`pragma wal_autocheckpoint = 0`.execute(database.db);
  /** The visits of one flush: `time(i)` and the variety of the phase. */
  const record = (time: (i: number) => number, varied: boolean) => {
    for (let i = 0; i < VISITS_PER_FLUSH; i++) {
      const link = links[Math.floor(Math.random() * links.length)]!;
      recorder.record({
        link,
        time: time(i),
        source: i % 3 === 0 ? 'q' : 's',
        country: varied ? `C${i % 30}` : COUNTRIES[i % COUNTRIES.length]!,
        agent: CLASSES[i % CLASSES.length]!,
        referrer: varied ? `r${(i * 7) % 32}.example` : REFERRERS[(i * 7) % REFERRERS.length]!,
        visitor: varied ? Math.floor(Math.random() * 2 ** 32) : i % 40,
      });
    }
  };
  const measured = async (phase: string, time: (i: number) => number, varied: boolean) => {
    for (let round = 1; round <= ROUNDS; round++) {
      record(time, varied);
      if (sqliteFile) await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
      const logBefore = sqliteFile ? 0 : await logBytes();
      const started = performance.now();
      const hold = longestHold();
      await recorder.flush();
      const longest = hold.stop();
      const elapsed = performance.now() - started;
      const log = `${(((await logBytes()) - logBefore) / 1e6).toFixed(1)} MB`;
      console.log(
        `| ${label} | ${phase} | ${round} | ${elapsed.toFixed(0)} ms | ${((elapsed * 1000) / VISITS_PER_FLUSH).toFixed(2)} µs | ${longest.toFixed(1)} ms | ${log} |`,
      );
    }
  };
  // A day of its own for each phase: yesterday's first minutes, then today up to its last quarter hour.
  const today = Math.floor(Date.now() / 86_400_000) * 86_400_000;
  clock = today - 86_400_000 + 60_000;
  await measured('early', () => clock, false);
  // The day's earlier flushes, each with the visits since the one before it.
  const flushes = Math.ceil(LATE_VISITS / VISITS_PER_FLUSH);
  clock = today;
  for (let k = 1; k <= flushes; k++) {
    const since = clock;
    clock = today + Math.floor((k * 95 * QUARTER_MS) / flushes);
    record(() => since + Math.random() * (clock - since), true);
    await recorder.flush();
  }
  clock = today + 95 * QUARTER_MS + 60_000;
  await measured('late', () => clock, true);
  // The compaction: first what a day of flushes hours apart left (every writer's but the last), then,
  // the instance having left its writer at its next hour's heartbeat, that writer's row of each link.
  const compaction = async (what: string) => {
    const store = new KyselyRecordingStore(database, new KyselyVisitAllowance(database));
    const rows = async () =>
      Number(
        (
          await database.db
            .selectFrom('visit_tallies')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await rows();
    if (sqliteFile) await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
    const logBefore = sqliteFile ? 0 : await logBytes();
    const started = performance.now();
    const hold = longestHold();
    let linkDays = 0;
    for (let n; (n = await store.compact(true)) > 0;) linkDays += n;
    const longest = hold.stop();
    const elapsed = performance.now() - started;
    const log = `${(((await logBytes()) - logBefore) / 1e6).toFixed(1)} MB`;
    compactions.push(
      `| ${label} | ${what} | ${linkDays} | ${before - (await rows()) + linkDays} | ${(elapsed / 1000).toFixed(1)} s | ${((elapsed * 1000) / linkDays).toFixed(0)} µs | ${longest.toFixed(1)} ms | ${log} |`,
    );
  };
  await compaction("a day's rows, all writers' but the last");
  clock += 3_600_000;
  await recorder.flush();
  await compaction("an hour's row of each link, beside the day's");
  if (!sqliteFile) {
    const { rows } = await sql<{ bytes: string }>`select pg_total_relation_size('visit_tallies') as bytes`.execute(database.db);
    tableSizes.push(`${label}: visit_tallies is ${(Number(rows[0]!.bytes) / 1e6).toFixed(1)} MB after both phases`);
  }
  await recorder.stop();
  await database.close();
}

console.log(`${LINKS} links, flushes of ${VISITS_PER_FLUSH} visits, ${LATE_VISITS} before the late ones; load average ${os.loadavg()[0]!.toFixed(1)}`);
console.log('| database | phase | round | flush | per visit | longest hold of the event loop | log written |\n|---|---|---|---|---|---|---|');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-flush-'));
try {
  const file = path.join(dir, 'bench.db');
  await run('SQLite', `sqlite:${file}`, file);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
const pgDb = await postgresUrl('bench_flush_load');
if (pgDb) {
  try {
    await run('PostgreSQL', pgDb.url);
  } finally {
    await pgDb.drop();
  }
} else {
  console.log(`PostgreSQL: not reachable at ${PG_ADMIN}, skipped`);
}
console.log(compactions.join('\n'));
for (const line of tableSizes) console.log(line);
