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
  if (pointsAtUs(url, new URL(publicUrl))) throw new AppError('invalid_request');
  return target;
}

/**
 * Compared as the router would see the request: the path percent-decoded (`/%73/x` is `/s/x`),
 * repeated slashes collapsed, and the host without a trailing dot (`sho.rt.` is `sho.rt`).
 */
function pointsAtUs(url: URL, own: URL): boolean {
  const host = (name: string) => name.replace(/\.$/, '').toLowerCase();
  if (host(url.hostname) !== host(own.hostname)) return false;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    throw new AppError('invalid_request');
  }
  return /^\/+(s|q)(\/|$)/i.test(path);
}
