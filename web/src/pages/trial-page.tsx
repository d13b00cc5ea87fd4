import { api, ApiError } from '../api/client.js';
import type { Link } from '../api/types.js';
import type { PageProps } from '../routes.js';
import { Busy, ErrorMessage, Notice } from '../ui/form.js';
import { useResource } from '../ui/use-resource.js';
import { savedTrial } from './home/trial-store.js';
import { AnalyticsSection } from './link/analytics-section.js';
import { LinkFacts } from './link/link-facts.js';
import { QrSection } from './link/qr-section.js';

/** A trial link's own page, opened with the token this browser kept when the link was made. */
export default function TrialPage({ params }: PageProps) {
  const saved = savedTrial(params.id ?? '');
  return (
    <section>
      <h1 tabIndex={-1}>Your trial link</h1>
      {saved ? (
        <TrialLink id={saved.id} token={saved.token} />
      ) : (
        <Notice kind="warning">
          <p>This browser does not hold this trial link. A trial link’s page opens only in the browser that made it, for 7 days.</p>
          <p>
            <a href="/">Make a new trial link</a> or <a href="/app/signup">create an account</a> to keep your links.
          </p>
        </Notice>
      )}
    </section>
  );
}

function TrialLink({ id, token }: { id: string; token: string }) {
  const link = useResource(() => api<Link>('GET', `/links/${id}`, undefined, { trialToken: token }));
  if (link.error instanceof ApiError && link.error.status === 410) {
    return (
      <Notice kind="warning">
        <p>This trial link has expired: trial links work for 7 days. Its short URL and QR code no longer redirect.</p>
        <p>
          <a href="/">Make a new trial link</a> or <a href="/app/signup">create an account</a> for links that last.
        </p>
      </Notice>
    );
  }
  return (
    <>
      <Busy busy={link.loading && link.data === undefined} text="Loading your link…" />
      <ErrorMessage error={link.error} />
      {link.data && (
        <>
          <LinkFacts link={link.data} />
          <QrSection link={link.data} trialToken={token} />
          <AnalyticsSection link={link.data} trialToken={token} />
        </>
      )}
    </>
  );
}
