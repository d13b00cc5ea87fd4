import { API_LIMITS } from '../platform/api-limits.js';

/**
 * Random slugs: 8 characters of base62 from the CSPRNG (about 47.6 bits), short enough to type from a
 * poster and too many to enumerate. Rejection sampling keeps every character uniform.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const RANDOM_SLUG_LENGTH = 8;
export const ALIAS_PATTERN = `^[A-Za-z0-9_-]{1,${API_LIMITS.links.aliasMaxLength}}$`;
const SLUG_SHAPE = new RegExp(ALIAS_PATTERN);

export type RandomBytes = (size: number) => Buffer;

export function randomSlug(randomBytes: RandomBytes): string {
  let slug = '';
  while (slug.length < RANDOM_SLUG_LENGTH) {
    for (const byte of randomBytes(RANDOM_SLUG_LENGTH * 2)) {
      // 248 = 4 * 62: bytes above it would make the first characters likelier.
      if (byte < 248 && slug.length < RANDOM_SLUG_LENGTH) slug += ALPHABET[byte % 62];
    }
  }
  return slug;
}

/** Anything that could not be a slug is answered without touching the cache or the database. */
export const isSlugShaped = (value: string): boolean => SLUG_SHAPE.test(value);
