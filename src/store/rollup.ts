import { sql, type Kysely, type Transaction } from 'kysely';
import type { AnalyticsDB } from './analytics-schema.js';
import { decodeJournal } from './journal.js';

/**
 * Journal rows folded per transaction, and rows per statement (SQLite allows 500 compound SELECTs;
 * small statements keep each synchronous SQLite call around a millisecond).
 */
const JOURNALS_PER_PASS = 20;
const ROWS_PER_STATEMENT = 200;

/** better-sqlite3 runs each statement synchronously: yielding between them lets redirects be served. */
export const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Folds flushed journal batches into per-day, per-dimension rollups and the links' visit totals. Each
 * pass is one transaction that also deletes the journal rows it folded, so a count is folded exactly
 * once; the analytics_state row is locked first, so passes of several instances take turns.
 */
export async function rollUp(db: Kysely<AnalyticsDB>, now: number): Promise<number> {
  // Read before the journal: every visit older than this was flushed by then, so this pass folds it.
  const covered = await durableUntil(db, now);
  let total = 0;
  const buckets = await db.selectFrom('visit_journal').select('bucket').distinct().execute();
  for (const { bucket } of buckets) {
    for (;;) {
      const { visits, more } = await db.transaction().execute((tx) => pass(tx, Number(bucket)));
      total += visits;
      await breathe();
      if (!more) break;
    }
  }
  // Only ever rises: a slower roll-up of another instance must not make stats look older.
  await db
    .insertInto('analytics_state')
    .values({ name: 'rolled_up_at', value: covered })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: covered }).where('analytics_state.value', '<', covered))
    .execute();
  if (total > 0) {
    await db
      .insertInto('analytics_state')
      .values({ name: 'generation', value: 1 })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: sql<number>`analytics_state.value + 1` }))
      .execute();
  }
  return total;
}

async function pass(tx: Transaction<AnalyticsDB>, bucket: number): Promise<{ visits: number; more: boolean }> {
  // Locking the state row first makes concurrent passes of several instances take turns.
  await tx.insertInto('analytics_state').values({ name: 'roll_up_lock', value: 0 }).onConflict((oc) => oc.column('name').doUpdateSet({ value: 0 })).execute();
  const journals = await tx.selectFrom('visit_journal').select(['id', 'entries']).where('bucket', '=', bucket).limit(JOURNALS_PER_PASS).execute();
  if (journals.length === 0) return { visits: 0, more: false };
  // Nested maps keyed by strings the journal already holds: no key is built per count and dimension.
  const rollups = new Map<string, Map<string, Map<string, number>>>();
  const perLink = new Map<string, number>();
  let visits = 0;
  for (const journal of journals) {
    for (const c of decodeJournal(journal.entries)) {
      visits += c.count;
      perLink.set(c.linkId, (perLink.get(c.linkId) ?? 0) + c.count);
      let days = rollups.get(c.linkId);
      if (!days) rollups.set(c.linkId, (days = new Map()));
      let values = days.get(c.day);
      if (!values) days.set(c.day, (values = new Map()));
      const keys = [`s\u0000${c.source}`, `c\u0000${c.country}`, `d\u0000${c.device}`, `b\u0000${c.browser}`, `r\u0000${c.referrer}`, c.bot ? 'x\u0000yes' : 'x\u0000no'];
      for (const key of keys) values.set(key, (values.get(key) ?? 0) + c.count);
    }
  }
  await upsertRollups(tx, rollups);
  await addLinkVisits(tx, perLink);
  const ids = journals.map((j) => j.id);
  await tx.deleteFrom('visit_journal').where('id', 'in', ids).execute();
  return { visits, more: journals.length === JOURNALS_PER_PASS };
}

const DIMENSION_OF: Record<string, string> = { s: 'source', c: 'country', d: 'device', b: 'browser', r: 'referrer', x: 'bot' };

async function upsertRollups(tx: Transaction<AnalyticsDB>, rollups: Map<string, Map<string, Map<string, number>>>): Promise<void> {
  const rows: { link_id: string; dimension: string; day: string; value: string; count: number }[] = [];
  for (const [link_id, days] of rollups) {
    for (const [day, values] of days) {
      for (const [key, count] of values) rows.push({ link_id, dimension: DIMENSION_OF[key[0]!]!, day, value: key.slice(2), count });
    }
  }
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await tx
      .insertInto('visit_rollups')
      .values(rows.slice(i, i + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns(['link_id', 'dimension', 'value', 'day']).doUpdateSet({ count: sql<number>`visit_rollups.count + excluded.count` }),
      )
      .execute();
    await breathe();
  }
}

/** One UPDATE … FROM per chunk of links (both databases support it) instead of one statement per link. */
async function addLinkVisits(tx: Transaction<AnalyticsDB>, perLink: Map<string, number>): Promise<void> {
  const entries = [...perLink];
  for (let i = 0; i < entries.length; i += ROWS_PER_STATEMENT) {
    const values = sql.join(
      entries.slice(i, i + ROWS_PER_STATEMENT).map(([id, n]) => sql`select cast(${id} as text) as id, cast(${n} as bigint) as n`),
      sql` union all `,
    );
    await sql`update links set visits = links.visits + v.n from (${values}) as v where links.id = v.id`.execute(tx);
    await breathe();
  }
}

/**
 * The time up to which every running instance has made its visits durable (its last flush or idle
 * heartbeat): the honest "refreshed at" of what a roll-up folds. An instance that died holds it back
 * until it is reaped, which is right: its unflushed visits are not in the stats (they become a gap).
 */
async function durableUntil(db: Kysely<AnalyticsDB>, now: number): Promise<number> {
  const row = await db.selectFrom('recorder_instances').select((eb) => eb.fn.min<number>('flushed_to').as('covered')).executeTakeFirst();
  const covered = row?.covered === null || row?.covered === undefined ? now : Number(row.covered);
  return Math.min(covered, now);
}
