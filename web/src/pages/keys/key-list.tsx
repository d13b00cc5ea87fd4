import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { KeySummary } from '../../api/types.js';
import { ConfirmDialog } from '../../ui/dialog.js';
import { formatDateTime, formatNumber } from '../../ui/format.js';
import { useAction } from '../../ui/use-action.js';

/** How people recognise a key: its first characters and its last four. */
export const keyHint = (key: KeySummary): string => (key.prefix === null || key.last4 === null ? 'not recorded' : `${key.prefix}…${key.last4}`);

export const budgetText = (budget: number | null): string => (budget === null ? 'No limit' : `${formatNumber(budget)} credits`);

/** The account's keys; on narrow screens each row becomes a card (styles.css, `.cards`). */
export function KeyList({ keys, onRevoked }: { keys: KeySummary[]; onRevoked: () => Promise<void> }) {
  const [revoking, setRevoking] = useState<KeySummary>();
  const revoke = useAction(async (key: KeySummary) => {
    await api('DELETE', `/keys/${encodeURIComponent(key.id)}`);
    await onRevoked();
    setRevoking(undefined);
  });
  return (
    <>
      {keys.length === 0 && <p>No keys yet. A program needs one to call the API.</p>}
      {keys.length > 0 && (
        <table class="cards">
          <caption class="visually-hidden">Your API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Monthly budget</th>
              <th scope="col">Spent this month</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id}>
                <th scope="row" id={`key-${key.id}`} data-label="Name">
                  {key.name || 'Unnamed key'}
                </th>
                <td data-label="Key" class="mono nowrap">
                  {keyHint(key)}
                </td>
                <td data-label="Scopes">{key.scopes.join(', ')}</td>
                <td data-label="Monthly budget">{budgetText(key.budget)}</td>
                <td data-label="Spent this month">{formatNumber(key.spentThisMonth)} credits</td>
                <td data-label="Created">{formatDateTime(key.createdAt)}</td>
                <td data-label="Last used">{formatDateTime(key.lastUsedAt)}</td>
                <td>
                  <button type="button" class="danger" aria-describedby={`key-${key.id}`} onClick={() => (revoke.clearError(), setRevoking(key))}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke the key “${revoking?.name || 'Unnamed key'}”?`}
        confirmLabel="Revoke key"
        danger
        busy={revoke.busy}
        error={revoke.error}
        errorOverrides={{ not_found: 'This key is gone already. Reload the page to see your keys.' }}
        onConfirm={() => revoking && void revoke.run(revoking)}
        onCancel={() => setRevoking(undefined)}
      >
        <p>Programs using it stop working at once: their requests are refused from now on. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
