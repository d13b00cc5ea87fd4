import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, newIdempotencyKey } from '../../api/client.js';
import type { Usage } from '../../api/types.js';
import { ConfirmDialog } from '../../ui/dialog.js';
import { Notice } from '../../ui/form.js';
import { formatNumber } from '../../ui/format.js';
import { useAction } from '../../ui/use-action.js';

const OVERRIDES = {
  credits_required: 'Your purchased balance is too small for a capacity pack. See “Getting credits” below.',
  request_conflict: 'This purchase is still being processed. Wait a moment, then try again: it will not be charged twice.',
};

/** A failure after which the same purchase may be sent again: the server may or may not have done it. */
const mayRetry = (error: unknown): boolean =>
  error instanceof ApiError &&
  (error.code === 'network' || error.code === 'unexpected' || error.status >= 500 || error.status === 429 || error.code === 'request_conflict');

/**
 * Buying a pack: one Idempotency-Key per confirmed purchase, kept for a retry of the same purchase,
 * so double clicks and retries after a lost answer never buy twice.
 */
export function BuyPack({ usage, onBought, refunds = 0 }: { usage: Usage; onBought: () => Promise<void>; refunds?: number }) {
  const { capacityPackCredits: price, capacityPackVisits: visits } = usage.pricing;
  const [confirming, setConfirming] = useState(false);
  const [bought, setBought] = useState(false);
  const purchaseKey = useRef<string | undefined>(undefined);
  useEffect(() => setBought(false), [refunds]);
  const buy = useAction(async () => {
    purchaseKey.current ??= newIdempotencyKey();
    try {
      await api('POST', '/links/capacity', { maxCredits: price }, { idempotencyKey: purchaseKey.current });
    } catch (error) {
      if (!mayRetry(error)) purchaseKey.current = undefined;
      throw error;
    }
    purchaseKey.current = undefined;
    setConfirming(false);
    setBought(true);
    await onBought();
  });
  const open = () => {
    setBought(false);
    buy.clearError();
    setConfirming(true);
  };
  return (
    <div>
      <div role="status">{bought && <Notice kind="success">Capacity pack bought: {formatNumber(visits)} more visits can be recorded.</Notice>}</div>
      <p class="actions">
        <button type="button" class="primary" onClick={open}>
          Buy capacity pack
        </button>
        <span>
          {formatNumber(visits)} more recorded visits for {price} credits
        </span>
      </p>
      <ConfirmDialog
        open={confirming}
        title="Buy a capacity pack?"
        confirmLabel="Confirm purchase"
        busy={buy.busy}
        error={buy.error}
        errorOverrides={OVERRIDES}
        onConfirm={() => void buy.run()}
        onCancel={() => setConfirming(false)}
      >
        <p>
          {formatNumber(visits)} more recorded visits for <strong>{price} credits</strong> from your purchased balance ({formatNumber(usage.purchasedBalance)}{' '}
          available). Unused visits carry forward to the next months. An unused pack can be refunded.
        </p>
      </ConfirmDialog>
    </div>
  );
}
