import { page, reportLink } from '../platform/http/pages.js';
import { DAY_MS } from '../platform/time.js';
import type { LinkRecord } from './ports.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** "today", "yesterday", "12 days ago": how old a link is, as people say it. */
export function age(createdAt: number, now: number): string {
  const days = Math.floor(now / DAY_MS) - Math.floor(createdAt / DAY_MS);
  if (days <= 0) return 'today';
  return days === 1 ? 'yesterday' : `${days} days ago`;
}

/**
 * The preview of a short link (`/s/<slug>+`, `/q/<slug>+`, CONTRACT.md): where it goes, its title and
 * its age, without redirecting and without counting a visit, as Bitly's and Kutt's previews do. Only
 * an active link's destination is a link to follow; a suspended one's is shown as text alone.
 */
export function previewPage(link: LinkRecord | undefined, shortUrl: string, now: number): string {
  const report = reportLink(shortUrl);
  if (!link || link.status === 'deleted') return page('Link not found', `No short link answers at ${escapeHtml(shortUrl)}.`, report);
  const expired = link.expiresAt !== null && link.expiresAt <= now;
  const destination = escapeHtml(link.target);
  const state = expired
    ? 'This trial link has expired and no longer redirects.'
    : link.status === 'active'
      ? `<a href="${destination}" rel="noopener noreferrer nofollow">Continue to the destination</a>`
      : link.status === 'paused'
        ? 'Its owner has paused it: it does not redirect right now.'
        : 'The service disabled it: it no longer redirects.';
  const title = link.title === '' ? 'Where this short link goes' : escapeHtml(link.title);
  const more = `<p style="overflow-wrap:anywhere"><code>${destination}</code></p><p>Made ${age(link.createdAt, now)}.</p><p>${state}</p>${report}`;
  return page(title, `${escapeHtml(shortUrl)} goes to:`, more);
}
