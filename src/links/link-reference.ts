import { isSlugShaped } from './slugs.js';

/**
 * The slug an abuse report names. Reports arrive as whatever the reporter copied: the short URL or the
 * QR URL, on any host (a proxy's, an old domain's), with or without a trailing slash, a query or a
 * fragment, as the preview page's `…/s/<slug>+`, without the scheme, or the bare slug. Undefined when
 * the text is none of these.
 */
export function slugOfReference(text: string): string | undefined {
  const reference = text.trim();
  const bare = reference.replace(/\+$/, '');
  if (isSlugShaped(bare)) return bare;
  const path = pathOf(reference);
  const match = path === undefined ? null : /^\/[sq]\/([^/]+?)\+?\/?$/.exec(path);
  if (!match) return undefined;
  const slug = decoded(match[1]!);
  return slug !== undefined && isSlugShaped(slug) ? slug : undefined;
}

/** The path of a URL, with `http://` assumed when no scheme is written (`sho.rt/s/abc`). */
function pathOf(reference: string): string | undefined {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(reference) ? reference : `http://${reference}`;
  try {
    return new URL(absolute).pathname;
  } catch {
    return undefined;
  }
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
