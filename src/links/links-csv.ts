import type { LinkResponse } from './link-schemas.js';

export const LINKS_CSV_HEADER = 'title,slug,short_url,qr_url,destination,tags,status,visits,created';

/** A CSV cell: quoted when needed, and a leading formula character neutralised (CSV injection). */
function cell(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function linksCsv(links: LinkResponse[]): string {
  const rows = links.map((link) =>
    [link.title, link.slug, link.shortUrl, link.qrUrl, link.target, link.tags, link.status, link.visits ?? 0, new Date(link.created_at).toISOString()]
      .map(cell)
      .join(','),
  );
  return [LINKS_CSV_HEADER, ...rows].join('\r\n') + '\r\n';
}
