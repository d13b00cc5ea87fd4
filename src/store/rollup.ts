import { sql, type Kysely, type Transaction } from 'kysely';
import type { AnalyticsDB } from './analytics-schema.js';
import { decodeJournal } from './journal.js';

/** Journal rows folded per transaction, and rows per statement (SQLite allows 500 compound SELECTs). */
const JOURNALS_PER_PASS = 50;
const ROWS_PER_STATEMENT = 400;

/** better-sqlite3 runs each statement synchronously: yielding between them lets redirects be served. */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Folds flushed journal batches into per-day, per-dimension rollups and the links' visit totals. Each
 * pass is one transaction that also deletes the journal rows it folded, so a count is folded exactly
 * once; the analytics_state row is locked first, so passes of several instances take turns.
 */
export async function rollUp(db: Kysely<AnalyticsDB>, now: number): Promise<number> {
  let total = 0;
  for (;;) {
    const { visits, more } = await db.transaction().execute((tx) => pass(tx, now));
    total += visits;
    if (!more) return total;
    await breathe();
  }
}

async function pass(tx: Transaction<AnalyticsDB>, now: number): Promise<{ visits: number; more: boolean }> {
  await tx
    .insertInto('analytics_state')
    .values({ name: 'rolled_up_at', value: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: now }))
    .execute();
  const journals = await tx.selectFrom('visit_journal').select(['id', 'entries']).limit(JOURNALS_PER_PASS).execute();
  if (journals.length === 0) return { visits: 0, more: false };
  const rollups = new Map<string, number>();
  const perLink = new Map<string, number>();
  let visits = 0;
  for (const journal of journals) {
    for (const c of decodeJournal(journal.entries)) {
      visits += c.count;
      perLink.set(c.linkId, (perLink.get(c.linkId) ?? 0) + c.count);
      const values = [c.source, c.country, c.device, c.browser, c.referrer, c.bot ? 'yes' : 'no'];
      const dims = ['source', 'country', 'device', 'browser', 'referrer', 'bot'];
      for (let i = 0; i < dims.length; i++) {
        const key = `${c.linkId}\u0000${dims[i]}\u0000${c.day}\u0000${values[i]}`;
        rollups.set(key, (rollups.get(key) ?? 0) + c.count);
      }
    }
  }
  await upsertRollups(tx, rollups);
  await addLinkVisits(tx, perLink);
  const ids = journals.map((j) => j.id);
  await tx.deleteFrom('visit_journal').where('id', 'in', ids).execute();
  return { visits, more: journals.length === JOURNALS_PER_PASS };
}

async function upsertRollups(tx: Transaction<AnalyticsDB>, rollups: Map<string, number>): Promise<void> {
  const rows = [...rollups].map(([key, count]) => {
    const [link_id, dimension, day, value] = key.split('\u0000') as [string, string, string, string];
    return { link_id, dimension, day, value, count };
  });
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await tx
      .insertInto('visit_rollups')
      .values(rows.slice(i, i + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns(['link_id', 'dimension', 'day', 'value']).doUpdateSet({ count: sql<number>`visit_rollups.count + excluded.count` }),
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
