import { api, ApiError } from '../../api/client.js';
import type { Link } from '../../api/types.js';
import { ErrorMessage } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';

const OVERRIDES = {
  link_changed: 'This link changed in the meantime; it is shown as it is now. Check it, then try again.',
  request_conflict: 'Only active or paused links can be paused or resumed.',
};

/** Pause stops both URLs from redirecting; resume starts them again. Neither costs anything. */
export function StatusControl({ link, onChanged }: { link: Link; onChanged: (link: Link) => void }) {
  const change = useAction(async (status: 'active' | 'paused') => {
    try {
      onChanged(await api<Link>('PATCH', `/links/${link.id}`, { version: link.version, status }));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'link_changed') onChanged(await api<Link>('GET', `/links/${link.id}`));
      throw error;
    }
  });
  if (link.status !== 'active' && link.status !== 'paused') return null;
  const pausing = link.status === 'active';
  return (
    <div>
      <p>
        {pausing
          ? 'The short URL and the QR URL redirect to the destination. Pause the link to stop them for now; nothing is lost.'
          : 'This link is paused: its short URL and QR URL do not redirect. Resume it to start them again.'}
      </p>
      <div class="actions">
        <button type="button" class="secondary" disabled={change.busy} onClick={() => void change.run(pausing ? 'paused' : 'active')}>
          {pausing ? 'Pause' : 'Resume'}
        </button>
      </div>
      <ErrorMessage error={change.error} overrides={OVERRIDES} />
    </div>
  );
}
