import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Link } from '../api/types.js';
import type { PageProps } from '../routes.js';
import { Busy, ErrorMessage, Notice } from '../ui/form.js';
import { useResource } from '../ui/use-resource.js';
import { AnalyticsSection } from './link/analytics-section.js';
import { EditForm } from './link/edit-form.js';
import { LinkFacts } from './link/link-facts.js';
import { QrSection } from './link/qr-section.js';
import { StatusControl } from './link/status-control.js';

const OVERRIDES = { not_found: 'There is no link of yours at this address. It may belong to another account.' };

export default function LinkPage({ params, query }: PageProps) {
  const loaded = useResource(() => api<Link>('GET', `/links/${encodeURIComponent(params.id ?? '')}`));
  const [link, setLink] = useState<Link>();
  useEffect(() => setLink(loaded.data), [loaded.data]);
  return (
    <section>
      <h1 tabIndex={-1}>{link ? link.title || link.slug : 'Link'}</h1>
      <p>
        <a href="/app/links">All links</a>
      </p>
      <Busy busy={loaded.loading && link === undefined} text="Loading the link…" />
      <ErrorMessage error={loaded.error} overrides={OVERRIDES} />
      {link && <LinkBody link={link} created={query.get('created') === '1'} onChanged={setLink} />}
    </section>
  );
}

function LinkBody({ link, created, onChanged }: { link: Link; created: boolean; onChanged: (link: Link) => void }) {
  const editable = link.status === 'active' || link.status === 'paused';
  return (
    <>
      {created && <Notice kind="success">Your link is ready: share the short URL, or print the QR code below.</Notice>}
      <StateNotice link={link} />
      <LinkFacts link={link} />
      {editable && (
        <section aria-labelledby="edit-heading">
          <h2 id="edit-heading">Edit</h2>
          <EditForm link={link} onSaved={onChanged} />
          <h2>Pause or resume</h2>
          <StatusControl link={link} onChanged={onChanged} />
        </section>
      )}
      <QrSection link={link} />
      <AnalyticsSection link={link} />
    </>
  );
}

function StateNotice({ link }: { link: Link }) {
  if (link.status === 'suspended') {
    return (
      <Notice kind="warning">
        This link is suspended by the service’s operator: its short URL and QR URL do not redirect, and it cannot be edited. Write to the operator if you think
        this is a mistake.
      </Notice>
    );
  }
  if (link.status === 'deleted') return <Notice kind="warning">This link is deleted: its URLs no longer redirect.</Notice>;
  if (link.expiresAt !== undefined && link.expiresAt <= Date.now())
    return <Notice kind="warning">This trial link has expired: its URLs no longer redirect.</Notice>;
  return null;
}
