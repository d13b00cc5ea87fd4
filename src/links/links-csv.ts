import { csvCell } from '../platform/csv-cell.js';
import type { LinkResponse } from './link-schemas.js';

export const LINKS_CSV_HEADER = 'title,slug,short_url,qr_url,destination,tags,status,visits,created';

export function linksCsv(links: LinkResponse[]): string {
  const rows = links.map((link) =>
    [link.title, link.slug, link.shortUrl, link.qrUrl, link.target, link.tags, link.status, link.visits ?? 0, new Date(link.created_at).toISOString()]
      .map((value) => csvCell(String(value)))
      .join(','),
  );
  return [LINKS_CSV_HEADER, ...rows].join('\r\n') + '\r\n';
}
