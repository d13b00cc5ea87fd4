import { isSlugShaped } from './slugs.js';

/**
 * The slug a person means by what they paste: a short URL (`https://sho.rt/s/abc`), a QR URL
 * (`…/q/abc`), either with a query, a fragment, a trailing slash or the preview's `+`, on any host
 * (a report quotes the link as it was seen, perhaps through another name of the service), or the bare
 * slug. Undefined when it names no slug.
 */
export function slugOf(input: string): string | undefined {
  const text = input.trim();
  let path = text;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^[^/\s]+\/[sq]\//i.test(text)) {
    try {
      path = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`).pathname;
    } catch {
      return undefined;
    }
  }
  const match = /^\/?(?:[sq]\/)?([^/?#]+)\/?(?:[?#].*)?$/.exec(path);
  if (!match) return undefined;
  let slug: string;
  try {
    slug = decodeURIComponent(match[1]!).replace(/\+$/, '');
  } catch {
    return undefined;
  }
  return isSlugShaped(slug) ? slug : undefined;
}
