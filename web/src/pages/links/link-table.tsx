import { useLayoutEffect } from 'preact/hooks';
import type { Link } from '../../api/types.js';
import { CopyButton } from '../../ui/copy-button.js';
import { formatNumber } from '../../ui/format.js';
import { STATUS_TEXT } from '../link/link-facts.js';
import { formatUtcDate } from './utc.js';

/** Marks around drawing a page of links: the browser tests read the measure against a 100 ms budget. */
export const RENDER_MARKS = { arrived: 'links:data-arrived', drawn: 'links:rows-drawn', measure: 'links:render' } as const;

export function markArrived(): void {
  performance.mark(RENDER_MARKS.arrived);
}

/** A page of the account's links, one row each, newest first as the API lists them. */
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
          <th scope="col">Slug</th>
          <th scope="col">Destination</th>
          <th scope="col">Title</th>
          <th scope="col">Tags</th>
          <th scope="col">Status</th>
          <th scope="col" class="number">
            Visits
          </th>
          <th scope="col">Created (UTC)</th>
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
  return (
    <tr>
      <th scope="row" data-label="Slug">
        <a href={`/app/links/${link.id}`} class="mono slug">
          {link.slug}
        </a>
      </th>
      <td data-label="Destination" class="mono destination">
        {link.target}
      </td>
      <td data-label="Title">{link.title}</td>
      <td data-label="Tags">{link.tags}</td>
      <td data-label="Status">{STATUS_TEXT[link.status]}</td>
      <td data-label="Visits" class="number">
        {formatNumber(link.visits ?? 0)}
      </td>
      <td data-label="Created (UTC)" class="nowrap">
        {formatUtcDate(link.created_at)}
      </td>
      <td data-label="Copy">
        <div class="copies">
          <CopyButton text={link.shortUrl} label="Copy short URL" name={`Copy short URL of ${link.slug}`} />
          <CopyButton text={link.qrUrl} label="Copy QR URL" name={`Copy QR URL of ${link.slug}`} />
        </div>
      </td>
    </tr>
  );
}
