import type { LinkRecord } from './ports.js';
import type { LinkResponse } from './link-schemas.js';

/** The one mapper from a stored link to the Link object of API.md part 2. */
export function toLinkResponse(link: LinkRecord, publicUrl: string): LinkResponse {
  return {
    id: link.id,
    slug: link.slug,
    target: link.target,
    title: link.title,
    tags: link.tags,
    status: link.status,
    version: link.version,
    environment: 'live',
    created_at: link.createdAt,
    updated_at: link.updatedAt,
    shortUrl: `${publicUrl}/s/${link.slug}`,
    qrUrl: `${publicUrl}/q/${link.slug}`,
    visits: link.visits,
    trial: link.trial,
    ...(link.expiresAt !== null ? { expiresAt: link.expiresAt } : {}),
  };
}
