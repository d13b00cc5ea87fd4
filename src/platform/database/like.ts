import { sql, type RawBuilder } from 'kysely';

/** `%` and `_` in searched text are literal characters, not patterns. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Whether `column` contains `text`, ignoring case. The database's lower() on both sides: PostgreSQL's
 * LIKE is case-sensitive and ILIKE does not exist in SQLite, whose lower() folds ASCII only; folding
 * the pattern in JavaScript instead would make "Éclair" miss its own title there.
 */
export const containsIgnoringCase = (column: string, text: string): RawBuilder<boolean> =>
  sql<boolean>`lower(${sql.ref(column)}) like lower(${`%${escapeLike(text)}%`}) escape '\\'`;
