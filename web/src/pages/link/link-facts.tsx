import type { Link } from '../../api/types.js';
import { CopyButton } from '../../ui/copy-button.js';
import { formatInstant, formatNumber } from '../../ui/format.js';

export const STATUS_TEXT: Record<Link['status'], string> = {
  active: 'Active',
  paused: 'Paused',
  suspended: 'Suspended',
  deleted: 'Deleted',
};

/** What a link is: its two URLs to copy, where they lead, and its state. */
export function LinkFacts({ link }: { link: Link }) {
  return (
    <dl class="result link-facts">
      <dt>Short URL</dt>
      <dd>
        <a href={link.shortUrl} class="mono">
          {link.shortUrl}
        </a>
        <CopyButton text={link.shortUrl} label="Copy short URL" />
      </dd>
      <dt>QR URL</dt>
      <dd>
        <span class="mono">{link.qrUrl}</span>
        <CopyButton text={link.qrUrl} label="Copy QR URL" />
      </dd>
      <dt>Destination</dt>
      <dd class="mono">{link.target}</dd>
      {link.title && (
        <>
          <dt>Title</dt>
          <dd>{link.title}</dd>
        </>
      )}
      <dt>Status</dt>
      <dd>{STATUS_TEXT[link.status]}</dd>
      <dt>Visits</dt>
      <dd>{formatNumber(link.visits ?? 0)}</dd>
      <dt>Created</dt>
      <dd>{formatInstant(link.created_at)}</dd>
      {link.expiresAt !== undefined && (
        <>
          <dt>{link.expiresAt > Date.now() ? 'Works until' : 'Expired'}</dt>
          <dd>{formatInstant(link.expiresAt)}</dd>
        </>
      )}
    </dl>
  );
}
