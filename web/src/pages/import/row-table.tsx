import type { FailureCode } from '../../api/client.js';
import { formatNumber } from '../../ui/format.js';
import type { Outcome } from './import-store.js';
import type { PlannedRow } from './plan.js';

/** Why the API did not make a row's link, in words that say what to do. */
const NOT_MADE: Partial<Record<FailureCode, string>> = {
  invalid_request: 'the service refused its destination, title or tags (a blocked site, say)',
  link_allowance_required: 'the free links ran out meanwhile: check rows again to pay for it',
  credits_required: 'the purchased balance was too small',
  api_budget_exceeded: 'it would go over the monthly budget',
  request_conflict: 'its alias was taken meanwhile',
};

export const notMadeBecause = (code: FailureCode, alias?: string): string =>
  code === 'request_conflict' && alias === undefined
    ? 'another request was making it at that moment: check rows again'
    : (NOT_MADE[code] ?? 'the service refused it');

/** Every row with what becomes of it; on a phone each row is a card. */
export function RowTable({ rows, outcomes, price }: { rows: PlannedRow[]; outcomes: Record<string, Outcome>; price: number }) {
  return (
    <table class="import-table cards">
      <caption class="visually-hidden">The rows and what becomes of each</caption>
      <thead>
        <tr>
          <th scope="col">Row</th>
          <th scope="col">Link</th>
          <th scope="col">Alias</th>
          <th scope="col">Tags</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.row} class={row.plan === 'bad' ? 'bad' : undefined}>
            <th scope="row" data-label="Row">
              {row.row}
            </th>
            <td data-label="Link">
              <span class="title">{row.body.title ?? <span class="hint">No title</span>}</span>
              <span class="destination">{row.body.target || row.destination || '—'}</span>
            </td>
            <td data-label="Alias">{row.body.alias ?? '—'}</td>
            <td data-label="Tags">{row.body.tags ?? '—'}</td>
            <td data-label="Status">
              <RowStatus row={row} outcome={row.plan === 'bad' ? undefined : outcomes[row.key]} price={price} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RowStatus({ row, outcome, price }: { row: PlannedRow; outcome?: Outcome; price: number }) {
  const notes = row.notes.map((note) => (
    <span class="hint" key={note}>
      {note}
    </span>
  ));
  if (row.plan === 'bad') return <strong class="status bad">Cannot be made: {row.problem}</strong>;
  if (outcome?.state === 'made') {
    return (
      <>
        <strong class="status made">Made</strong> <a href={`/app/links/${outcome.link.id}`}>{outcome.link.shortUrl}</a>
      </>
    );
  }
  if (outcome?.state === 'sending') return <span class="status">Sent without an answer yet: sent again, never made twice.</span>;
  return (
    <>
      <span class="status">{row.plan === 'free' ? 'Free' : `${formatNumber(price)} credits`}</span>
      {outcome?.state === 'failed' && <strong class="status bad">Not made: {notMadeBecause(outcome.error, row.body.alias)}.</strong>}
      {notes}
    </>
  );
}
