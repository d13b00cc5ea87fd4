import { AppError } from './errors.js';

export const MAX_TARGET_LENGTH = 2048;

/**
 * A target is an absolute http(s) URL without credentials that does not point back at this service's
 * own redirect paths (which would loop or launder one short link through another).
 * Returns the target as given: we never rewrite what the user asked for.
 */
export function checkTarget(target: string, publicUrl: string): string {
  if (target.length > MAX_TARGET_LENGTH || target !== target.trim()) throw new AppError('invalid_request');
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new AppError('invalid_request');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('invalid_request');
  if (url.username !== '' || url.password !== '' || url.hostname === '') throw new AppError('invalid_request');
  // The raw text must say the scheme itself: `new URL` would otherwise accept "http:example.org".
  if (!/^https?:\/\//i.test(target)) throw new AppError('invalid_request');
  const own = new URL(publicUrl);
  if (url.hostname === own.hostname && /^\/(s|q)(\/|$)/i.test(url.pathname)) throw new AppError('invalid_request');
  return target;
}
