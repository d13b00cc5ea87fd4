import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { formatDateTime, formatNumber } from '../../ui/format.js';
import { ErrorMessage, Field, Submit, submitted } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';
import type { FoundLink } from './admin-types.js';

/** "Find link" by a short URL, QR URL or slug, as an abuse report quotes it; and what can be done to it. */
export function FindLink({ onChanged }: { onChanged: () => Promise<void> }) {
  const [url, setUrl] = useState('');
  const [found, setFound] = useState<FoundLink>();
  const [done, setDone] = useState('');
  const find = useAction(async () => {
    setDone('');
    setFound(await api<FoundLink>('GET', `/admin/links?url=${encodeURIComponent(url.trim())}`));
  });
  const act = useAction(async (path: string, message: (answer: { suspended?: number }) => string) => {
    const answer = await api<{ suspended?: number }>('POST', path, {});
    setFound(await api<FoundLink>('GET', `/admin/links?url=${encodeURIComponent(found!.link.shortUrl)}`));
    setDone(message(answer));
    await onChanged();
  });
  const link = found?.link;
  return (
    <section aria-labelledby="find-link-heading">
      <h2 id="find-link-heading">Find a link</h2>
      <form onSubmit={submitted(() => void find.run())}>
        <Field label="Find link" type="search" required value={url} onValue={setUrl} hint="A short URL, a QR URL or a slug." />
        <ErrorMessage error={find.error} overrides={{ not_found: 'No link of this service answers at that address.' }} />
        <Submit label="Find" busy={find.busy} kind="secondary" busyText="Looking…" />
      </form>
      {link && found && (
        <div class="result" aria-live="polite">
          <dl class="facts">
            <dt>Short link</dt>
            <dd class="wrap-anywhere">{link.shortUrl}</dd>
            <dt>Goes to</dt>
            <dd class="wrap-anywhere">{link.target}</dd>
            <dt>Title</dt>
            <dd>{link.title || 'Untitled'}</dd>
            <dt>Status</dt>
            <dd>{link.status}</dd>
            <dt>Owner</dt>
            <dd>{found.account ? found.account.email : 'A trial link (no account)'}</dd>
            <dt>Made</dt>
            <dd>{formatDateTime(link.created_at)}</dd>
            <dt>Visits recorded</dt>
            <dd>{formatNumber(link.visits ?? 0)}</dd>
            <dt>Open reports</dt>
            <dd>{found.reports.length === 0 ? 'None' : found.reports.map((report) => report.reason).join(' · ')}</dd>
          </dl>
          {found.recentVisits.length > 0 && (
            <table>
              <caption>Recent visits</caption>
              <thead>
                <tr>
                  <th scope="col">Day (UTC)</th>
                  <th scope="col">Visits</th>
                </tr>
              </thead>
              <tbody>
                {found.recentVisits.map((day) => (
                  <tr key={day.day}>
                    <th scope="row">{day.day}</th>
                    <td>{formatNumber(day.visits)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div class="actions">
            {(link.status === 'active' || link.status === 'paused') && (
              <button
                type="button"
                class="danger"
                disabled={act.busy}
                onClick={() => void act.run(`/admin/links/${link.id}/suspend`, () => 'The link is suspended.')}
              >
                Suspend link
              </button>
            )}
            {link.status === 'suspended' && (
              <button
                type="button"
                class="secondary"
                disabled={act.busy}
                onClick={() => void act.run(`/admin/links/${link.id}/restore`, () => 'The link is restored.')}
              >
                Restore link
              </button>
            )}
            {link.trial && (
              <button
                type="button"
                class="danger"
                disabled={act.busy}
                onClick={() =>
                  void act.run(`/admin/links/${link.id}/suspend-trial-day`, (answer) => `${formatNumber(answer.suspended ?? 0)} trial links suspended.`)
                }
              >
                Suspend this network’s trial links of that day
              </button>
            )}
          </div>
          <ErrorMessage error={act.error} />
          <p role="status">{done}</p>
        </div>
      )}
    </section>
  );
}
