import { useState } from 'preact/hooks';
import { API_LIMITS } from '../../../src/platform/api-limits.js';
import { ConfirmDialog } from '../ui/dialog.js';
import { Busy, ErrorMessage } from '../ui/form.js';
import { formatNumber, plural } from '../ui/format.js';
import { retryIn } from '../api/messages.js';
import { RowsForm } from './import/rows-form.js';
import { RowTable } from './import/row-table.js';
import { RunReport } from './import/run-report.js';
import { totals, type Totals } from './import/plan.js';
import { ZipReport } from './import/zip-report.js';
import { madeLinks, useImport, type Checked, type Progress } from './import/use-import.js';
import './import/import.css';

const PRICE = API_LIMITS.prices.extraLinkCredits;

/**
 * Many links at once from CSV rows: checked first (bad addresses, taken aliases, repeated rows, what is
 * free and what costs credits), then made one by one with a key per row, so that a retry, a reload or
 * a double click makes no link twice; then every code as a ZIP.
 */
export default function ImportPage() {
  const state = useImport();
  const { checked, text } = state;
  const [asking, setAsking] = useState(false);
  const sums = checked && totals(checked.rows);
  const stale = checked !== undefined && checked.text !== text;
  const made = madeLinks(checked);
  const busy = state.check.busy || state.create.busy || state.zip.busy;
  const create = () => (sums && sums.credits > 0 ? setAsking(true) : void state.create.run());

  return (
    <section class="import-page">
      <h1 tabIndex={-1}>Import links</h1>
      <p>
        Make up to {API_LIMITS.links.importMaxRows} links at once, one a row, such as a poster for each place of a campaign. Rows are checked first; nothing is
        made until you choose Create links.
      </p>
      <RowsForm
        key={state.id}
        text={text}
        onText={state.setText}
        unreadable={state.unreadable}
        busy={state.check.busy}
        onCheck={() => void state.check.run()}
      />
      <ErrorMessage error={state.check.error} />
      {checked && sums && (
        <section aria-labelledby="checked-heading">
          <h2 id="checked-heading">Checked rows</h2>
          <Summary checked={checked} sums={sums} />
          {stale && <p class="notice warning">The rows have changed since they were checked: check them again before creating links.</p>}
          <div class="actions">
            <button type="button" class="primary" onClick={create} disabled={busy || stale || leftToMake(sums) === 0}>
              Create links
            </button>
            {made.length > 0 && (
              <button type="button" class="secondary" onClick={() => void state.zip.run()} disabled={busy}>
                Download QR codes (ZIP)
              </button>
            )}
            <button type="button" class="secondary" onClick={state.startAgain} disabled={busy}>
              Start another import
            </button>
          </div>
          <ProgressLine progress={state.progress} waiting={state.waiting} />
          <ErrorMessage error={state.create.error ?? state.zip.error} />
          {state.ran && <RunReport rows={checked.rows} outcomes={state.outcomes} stop={state.stop} />}
          {state.leftOut && <ZipReport leftOut={state.leftOut} />}
          <RowTable rows={checked.rows} outcomes={state.outcomes} price={PRICE} />
        </section>
      )}
      {/* Open until the run ends: its button stays disabled meanwhile, so a second click lands nowhere. */}
      <ConfirmDialog
        open={asking}
        title={`Spend up to ${plural(sums?.credits ?? 0, 'credit', 'credits')}?`}
        confirmLabel={`Spend ${formatNumber(sums?.credits ?? 0)} credits`}
        busy={state.create.busy}
        onConfirm={() => void state.create.run().finally(() => setAsking(false))}
        onCancel={() => setAsking(false)}
      >
        {sums && checked && <PaymentText sums={sums} available={checked.quote.purchasedAvailable} />}
        {state.create.busy && <ProgressLine progress={state.progress} waiting={state.waiting} />}
      </ConfirmDialog>
      <p>
        <a href="/app/links">Back to your links</a>
      </p>
    </section>
  );
}

function Summary({ checked, sums }: { checked: Checked; sums: Totals }) {
  const available = checked.quote.purchasedAvailable ?? 0;
  const makeable = sums.free + sums.paid;
  return (
    <div role="status">
      <p>
        {plural(checked.rows.length, 'row', 'rows')}.{' '}
        {makeable > 0 && sums.paid === 0 && `${plural(makeable, 'link', 'links')} can be made, ${makeable === 1 ? 'free' : 'all free'}. `}
        {sums.paid > 0 && (
          <>
            {plural(makeable, 'link', 'links')} can be made: {sums.free > 0 && `${formatNumber(sums.free)} free and `}
            {formatNumber(sums.paid)} for <strong>{plural(sums.paid * PRICE, 'credit', 'credits')}</strong> in all ({formatNumber(available)} available).{' '}
          </>
        )}
        {sums.made > 0 && `${plural(sums.made, 'link was', 'links were')} made by this import already. `}
        {sums.resend > 0 && `${plural(sums.resend, 'row was', 'rows were')} sent without an answer: sent again, each is made once at most. `}
        {sums.bad > 0 && `${plural(sums.bad, 'row cannot', 'rows cannot')} be made: the table says why.`}
        {leftToMake(sums) === 0 && ' Nothing is left to make.'}
      </p>
      {checked.ignored.length > 0 && <p class="hint">Columns left out: {checked.ignored.join(', ')}.</p>}
      {sums.credits > available && (
        <p class="notice warning">
          Your purchased balance ({plural(available, 'credit', 'credits')}) is too small for every paid link: those past it are not made. See{' '}
          <a href="/app/billing">Usage and billing</a> for how to get credits.
        </p>
      )}
    </div>
  );
}

/** Rows Create links would send. */
const leftToMake = (sums: Totals): number => sums.free + sums.paid + sums.resend;

function PaymentText({ sums, available }: { sums: Totals; available?: number }) {
  const resent = sums.credits - sums.paid * PRICE;
  return (
    <>
      {sums.paid > 0 && (
        <p>
          {plural(sums.paid, 'link is', 'links are')} past this month’s free links: {sums.paid === 1 ? 'it costs' : 'they cost'}{' '}
          <strong>{plural(sums.paid * PRICE, 'credit', 'credits')}</strong> from your purchased balance
          {available !== undefined && ` (${formatNumber(available)} available)`}.{sums.free > 0 && ` The other ${formatNumber(sums.free)} are free.`}
        </p>
      )}
      {resent > 0 && (
        <p>
          {plural(sums.resend, 'row was', 'rows were')} sent before without an answer and {sums.resend === 1 ? 'is' : 'are'} sent again as before, for up to{' '}
          {plural(resent, 'credit', 'credits')}: a link made already costs nothing more.
        </p>
      )}
      <p>A link that cannot be made costs nothing.</p>
    </>
  );
}

function ProgressLine({ progress, waiting }: { progress?: Progress; waiting?: number }) {
  let text = '';
  if (progress)
    text = `${progress.what === 'create' ? 'Making link' : 'Drawing code'} ${formatNumber(progress.done + 1 > progress.total ? progress.total : progress.done + 1)} of ${formatNumber(progress.total)}…`;
  if (waiting !== undefined) text += ` Pausing for the service’s limit of requests a minute: ${retryIn(waiting).replace(/^Try again/, 'going on')}`;
  return <Busy busy={progress !== undefined || waiting !== undefined} text={text.trim() || 'Working…'} />;
}
