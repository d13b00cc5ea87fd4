import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import type { Pack } from '../../api/types.js';
import { ConfirmDialog } from '../../ui/dialog.js';
import { formatDateTime, formatNumber } from '../../ui/format.js';
import { useAction } from '../../ui/use-action.js';

const STATUS: Record<Pack['status'], string> = { active: 'Active', refunded: 'Refunded' };

/** The account's capacity packs, with Refund on each pack no visit was recorded on. */
export function Packs({ packs, onRefunded }: { packs: Pack[]; onRefunded: () => Promise<void> }) {
  const [refunding, setRefunding] = useState<Pack>();
  const refund = useAction(async (pack: Pack) => {
    await api('POST', `/account/packs/${encodeURIComponent(pack.id)}/refund`, {});
    await onRefunded();
    setRefunding(undefined);
  });
  return (
    <>
      {packs.length === 0 && <p>No capacity packs yet.</p>}
      {packs.length > 0 && (
        <table class="cards">
          <caption class="visually-hidden">Your capacity packs</caption>
          <thead>
            <tr>
              <th scope="col">Bought</th>
              <th scope="col">Status</th>
              <th scope="col">Visits used</th>
              <th scope="col">Credits</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {packs.map((pack) => (
              <tr key={pack.id}>
                <th scope="row" id={`pack-${pack.id}`} data-label="Bought">
                  {formatDateTime(pack.createdAt)}
                </th>
                <td data-label="Status">{STATUS[pack.status]}</td>
                <td data-label="Visits used">
                  {formatNumber(pack.visitsUsed)} of {formatNumber(pack.visits)}
                </td>
                <td data-label="Credits">{formatNumber(pack.credits)}</td>
                <td>
                  {pack.refundable && (
                    <button type="button" class="secondary" aria-describedby={`pack-${pack.id}`} onClick={() => (refund.clearError(), setRefunding(pack))}>
                      Refund
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={refunding !== undefined}
        title="Refund this capacity pack?"
        confirmLabel="Refund pack"
        busy={refund.busy}
        error={refund.error}
        errorOverrides={{
          request_conflict: 'Visits were recorded on this pack meanwhile, so it can no longer be refunded.',
          not_found: 'This pack is gone. Reload the page.',
        }}
        onConfirm={() => refunding && void refund.run(refunding)}
        onCancel={() => setRefunding(undefined)}
      >
        <p>
          Its {formatNumber(refunding?.credits ?? 0)} credits return to your purchased balance, and its {formatNumber(refunding?.visits ?? 0)} visits are no
          longer available.
        </p>
      </ConfirmDialog>
    </>
  );
}
