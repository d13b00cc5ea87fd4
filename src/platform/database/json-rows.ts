import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from './database.js';

export type Column = [name: string, type: 'text' | 'bigint'];

/**
 * A derived table of many rows from ONE parameter: the rows as a JSON array of arrays. Building a
 * multi-row VALUES statement costs a query-builder node per value, which showed up as the largest
 * cost of a visit flush; a JSON text is serialised natively and parsed by the database. The two databases
 * spell it differently: SQLite's json_each yields each element as `value` (its ->> returns SQL
 * integers for JSON integers), PostgreSQL's json_array_elements needs a cast per non-text column.
 */
export function jsonRows(dialect: Dialect, rows: unknown[][], columns: Column[]): RawBuilder<unknown> {
  const json = JSON.stringify(rows);
  if (dialect === 'sqlite') {
    const list = columns.map(([name], i) => sql`value ->> ${sql.lit(i)} as ${sql.ref(name)}`);
    return sql`(select ${sql.join(list)} from json_each(${json}))`;
  }
  const list = columns.map(([name, type], i) =>
    type === 'text' ? sql`e ->> ${sql.lit(i)} as ${sql.ref(name)}` : sql`(e ->> ${sql.lit(i)})::bigint as ${sql.ref(name)}`,
  );
  return sql`(select ${sql.join(list)} from json_array_elements(${json}::json) as e)`;
}
