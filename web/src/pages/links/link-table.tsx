import { useLayoutEffect } from 'preact/hooks';
import type { Link } from '../../api/types.js';
import { CopyButton } from '../../ui/copy-button.js';
import { formatDateTime, formatNumber } from '../../ui/format.js';
import { STATUS_TEXT } from '../link/link-facts.js';
import { QrThumb } from './qr-thumb.js';
import { browserZone } from '../../components/charts/wall-clock.js';
import { splitTags } from '../../../../src/links/link-tags.js';
import './links.css';

/** Marks around drawing a page of links: the browser tests read the measure against a 100 ms budget. */
export const RENDER_MARKS = { arrived: 'links:data-arrived', drawn: 'links:rows-drawn', measure: 'links:render' } as const;

export function markArrived(): void {
  performance.mark(RENDER_MARKS.arrived);
}

/**
 * A page of the account's links, one row each: known by its title (the slug second), with a small QR
 * code, its tags (each leading to its campaign), visits and status. On a phone each row is a compact card.
 */
export function LinkTable({ links }: { links: Link[] }) {
  useLayoutEffect(() => {
    if (performance.getEntriesByName(RENDER_MARKS.arrived).length === 0) return;
    performance.mark(RENDER_MARKS.drawn);
    performance.measure(RENDER_MARKS.measure, RENDER_MARKS.arrived, RENDER_MARKS.drawn);
    performance.clearMarks(RENDER_MARKS.arrived);
  }, [links]);
  return (
    <table class="cards links-table">
      <thead>
        <tr>
          <th scope="col">
            <span class="visually-hidden">QR code</span>
          </th>
          <th scope="col">Link</th>
          <th scope="col">Tags</th>
          <th scope="col" class="number">
            Visits
          </th>
          <th scope="col">Status</th>
          <th scope="col">Created ({browserZone()})</th>
          <th scope="col">Copy</th>
        </tr>
      </thead>
      <tbody>
        {links.map((link) => (
          <LinkRow key={link.id} link={link} />
        ))}
      </tbody>
    </table>
  );
}

function LinkRow({ link }: { link: Link }) {
  const tags = splitTags(link.tags);
  return (
    <tr>
      <td class="thumb">
        <QrThumb text={link.qrUrl} />
      </td>
      <th scope="row" class="name">
        <a href={`/app/links/${link.id}`} class="title">
          {link.title || link.slug}
        </a>
        <span class="slug mono">/{link.slug}</span>
        <span class="destination mono">{link.target}</span>
      </th>
      <td class="tags">
        {tags.length > 0 && (
          <ul class="chips" aria-label="Tags">
            {tags.map((tag) => (
              <li key={tag}>
                <a class="chip" href={`/app/campaigns/${encodeURIComponent(tag)}`} aria-label={`${tag} campaign`}>
                  {tag}
                </a>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td class="number visits">
        {formatNumber(link.visits ?? 0)}
        <span class="unit"> {link.visits === 1 ? 'visit' : 'visits'}</span>
      </td>
      <td class="status">
        <span class={`status-badge ${link.status}`}>{STATUS_TEXT[link.status]}</span>
      </td>
      <td class="nowrap created">{formatDateTime(link.created_at)}</td>
      <td class="copy-cell">
        <div class="copies">
          <CopyButton text={link.shortUrl} label="Copy short URL" name={`Copy short URL of ${link.slug}`} />
          <CopyButton text={link.qrUrl} label="Copy QR URL" name={`Copy QR URL of ${link.slug}`} />
        </div>
      </td>
    </tr>
  );
}
