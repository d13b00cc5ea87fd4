import type { Kysely } from 'kysely';

/** Rows converted per query. */
const BATCH = 500;

/**
 * Rollup counts keep each dimension's values and visits in one array, `{"country":["DE",3,"FR",1]}`,
 * instead of an object keyed by value, `{"country":{"DE":3,"FR":1}}`: the same text, parsed in about
 * half the time (docs/adr/0056). Rows are rewritten in batches in primary key order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  let after: [string, string, string] | undefined;
  for (;;) {
    const rows: { link_id: string; day: string; writer: string; counts: string }[] = await db
      .selectFrom('visit_rollups')
      .select(['link_id', 'day', 'writer', 'counts'])
      .$if(after !== undefined, (q) => q.where((eb) => eb(eb.refTuple('link_id', 'day', 'writer'), '>', eb.tuple(...after!))))
      .orderBy('link_id')
      .orderBy('day')
      .orderBy('writer')
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      const counts = JSON.parse(row.counts) as Record<string, Record<string, number>>;
      const arrays = Object.fromEntries(Object.entries(counts).map(([dimension, values]) => [dimension, Object.entries(values).flat()]));
      await db
        .updateTable('visit_rollups')
        .set({ counts: JSON.stringify(arrays) })
        .where('link_id', '=', row.link_id)
        .where('day', '=', row.day)
        .where('writer', '=', row.writer)
        .execute();
    }
    if (rows.length < BATCH) return;
    const last = rows[rows.length - 1]!;
    after = [last.link_id, last.day, last.writer];
  }
}
