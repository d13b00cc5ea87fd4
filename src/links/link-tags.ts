import { sql, type RawBuilder } from 'kysely';
import { API_LIMITS } from '../platform/api-limits.js';
import { escapeLike } from '../platform/database/like.js';
import type { RandomBytes } from './slugs.js';

/** A link's tags as typed ("poster, spring"): separated by commas, each trimmed, empty ones dropped. */
export const splitTags = (tags: string): string[] =>
  tags
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');

/**
 * Whether a link's `tags` hold `tag` whole: case aside (the database's lower() on both sides), spaces
 * around commas ignored and runs of spaces folded, the same for the links list and a tag's stats.
 */
export function holdsTag(tag: string): RawBuilder<boolean> {
  const wanted = `%,${escapeLike(tag.trim().replace(/\s+/g, ' '))},%`;
  const folded = sql`replace(replace(replace(lower(tags), '   ', ' '), '  ', ' '), '  ', ' ')`;
  return sql<boolean>`replace(replace(',' || ${folded} || ',', ', ', ','), ' ,', ',') like lower(${wanted}) escape '\\'`;
}

const DIGITS = '23456789abcdefghjkmnpqrstuvwxyz';

/**
 * Aliases to suggest when one is taken: the alias with -2 … -9, then with four random characters,
 * each cut to fit the alias length so the suggestion is always a valid alias.
 */
export function aliasCandidates(alias: string, randomBytes: RandomBytes): string[] {
  const max = API_LIMITS.links.aliasMaxLength;
  const fit = (suffix: string) => `${alias.slice(0, max - suffix.length)}${suffix}`;
  const numbered = [2, 3, 4, 5, 6, 7, 8, 9].map((n) => fit(`-${n}`));
  const random = [...randomBytes(4)].map((byte) => DIGITS[byte % DIGITS.length]).join('');
  return [...numbered, fit(`-${random}`)];
}
