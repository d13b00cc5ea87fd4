import { API_LIMITS } from '../platform/api-limits.js';
import type { RandomBytes } from './slugs.js';

/** A link's tags as typed ("poster, spring"): separated by commas, each trimmed, empty ones dropped. */
export const splitTags = (tags: string): string[] =>
  tags
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');

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
