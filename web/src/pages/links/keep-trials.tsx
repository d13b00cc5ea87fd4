import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api/client.js';
import type { Link, Quote } from '../../api/types.js';
import { ConfirmDialog } from '../../ui/dialog.js';
import { ErrorMessage, Notice } from '../../ui/form.js';
import { plural } from '../../ui/format.js';
import { useAction } from '../../ui/use-action.js';
import { choseToKeep, chooseToKeep, forgetTrial, keepableTrials, type SavedTrial } from '../home/trial-store.js';
import { EXTRA_LINK_CREDITS, quoteLink, QuoteText, type LinkQuote } from './quote-text.js';

const OVERRIDES = {
  credits_required: `Your purchased balance is too small for these links (${EXTRA_LINK_CREDITS} credits each). See Usage and billing for how to get credits; nothing was spent.`,
};

/**
 * Keeps the trial links this browser made when the person chose "Keep my trial links" on signing up or
 * in: each is claimed with its token (POST /links/{id}/claim, idempotent), free while the month's free
 * links last; the rest are priced and kept only once the person confirms, as any paid link. The free
 * links left are asked first (a link.create quote: a claim counts as a new link), so the automatic
 * claims stay within them and none is refused with 402 (only a race with another tab still meets one).
 */
export function KeepTrials({ onKept }: { onKept: () => void }) {
  const [kept, setKept] = useState(0);
  const [unpaid, setUnpaid] = useState<SavedTrial[]>([]);
  const [quote, setQuote] = useState<LinkQuote>();
  const claim = useAction(async (trials: SavedTrial[], maxCredits: number) => {
    const left: SavedTrial[] = [];
    let done = 0;
    // Unpaid, only as many as the month's free links left are sent; the rest wait for the person's yes.
    const free = maxCredits ? trials.length : ((await api<Quote>('POST', '/quotes', { action: 'link.create' })).freeLinks ?? 0);
    for (const trial of trials) {
      if (done >= free) {
        left.push(trial);
        continue;
      }
      try {
        await api<Link>('POST', `/links/${trial.id}/claim`, { trialToken: trial.token, ...(maxCredits ? { maxCredits } : {}) });
        forgetTrial(trial.id);
        done++;
      } catch (error) {
        if (error instanceof ApiError && error.code === 'link_allowance_required') left.push(trial);
        // Gone or another account's: nothing to keep. An expired one stays listed on the home page until its grace day ends.
        else if (error instanceof ApiError && error.status === 404) forgetTrial(trial.id);
        else if (error instanceof ApiError && error.status === 410) continue;
        else {
          if (done > 0) onKept();
          setKept((k) => k + done);
          throw error;
        }
      }
    }
    setKept((k) => k + done);
    setUnpaid(left);
    setQuote(undefined);
    if (left.length === 0) chooseToKeep(false);
    if (done > 0) onKept();
  });
  useEffect(() => {
    const trials = keepableTrials();
    if (choseToKeep() && trials.length > 0) void claim.run(trials, 0);
    else chooseToKeep(false);
  }, []);

  const offer = async () => setQuote(await quoteLink());
  if (kept === 0 && unpaid.length === 0 && !claim.error) return null;
  return (
    <div role="status" class="keep-trials">
      {kept > 0 && (
        <Notice kind="success">
          <p>{plural(kept, 'trial link is', 'trial links are')} now yours, with no expiry: the short URLs and QR codes you shared keep working.</p>
        </Notice>
      )}
      {unpaid.length > 0 && (
        <Notice kind="warning">
          <p>
            {plural(unpaid.length, 'trial link was', 'trial links were')} not kept yet: the free links of this month are used up. Keeping{' '}
            {unpaid.length === 1 ? 'it' : 'them'} costs {EXTRA_LINK_CREDITS} purchased credits a link.
          </p>
          <div class="actions">
            <button type="button" class="primary" onClick={() => void offer()}>
              Keep for {unpaid.length * EXTRA_LINK_CREDITS} credits
            </button>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setUnpaid([]);
                chooseToKeep(false);
              }}
            >
              Not now
            </button>
          </div>
        </Notice>
      )}
      <ErrorMessage error={quote ? null : claim.error} overrides={OVERRIDES} />
      <ConfirmDialog
        open={quote !== undefined}
        title="Pay to keep your trial links?"
        confirmLabel={`Spend ${unpaid.length * EXTRA_LINK_CREDITS} credits`}
        busy={claim.busy}
        error={claim.error}
        errorOverrides={OVERRIDES}
        onConfirm={() => void claim.run(unpaid, EXTRA_LINK_CREDITS)}
        onCancel={() => {
          setQuote(undefined);
          claim.clearError();
        }}
      >
        {quote && <QuoteText quote={quote} count={unpaid.length} />}
      </ConfirmDialog>
    </div>
  );
}
