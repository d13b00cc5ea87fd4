import { describeError } from '../../api/messages.js';
import { plural } from '../../ui/format.js';
import type { RunStop } from './create-links.js';
import type { Outcome } from './import-store.js';
import { ranges, type PlannedRow } from './plan.js';
import { notMadeBecause } from './row-table.js';

/**
 * What Create links did, row by row: which rows were made, which were refused and why, and, when it
 * stopped without an answer, which row may or may not have been made and which were not sent.
 */
export function RunReport({ rows, outcomes, stop }: { rows: PlannedRow[]; outcomes: Record<string, Outcome>; stop?: RunStop }) {
  // A bad row shares no outcome: one repeating an earlier row has that row's key.
  const outcome = (row: PlannedRow) => (row.plan === 'bad' ? undefined : outcomes[row.key]);
  const made = rows.filter((row) => outcome(row)?.state === 'made').map((row) => row.row);
  const unsettled = rows.filter((row) => outcome(row)?.state === 'sending').map((row) => row.row);
  const refused = rows.flatMap((row) => {
    const result = outcome(row);
    return result?.state === 'failed' ? [`row ${row.row} (${notMadeBecause(result.error, row.body.alias)})`] : [];
  });
  const unsent = rows.filter((row) => row.plan !== 'bad' && outcome(row) === undefined).map((row) => row.row);
  return (
    <div role="status" class={`notice ${stop ? 'error' : refused.length > 0 ? 'warning' : 'success'}`}>
      {stop && (
        <p>
          Stopped at row {stop.row}: {describeError(stop.error)}
        </p>
      )}
      <p>{made.length > 0 ? `Made: ${plural(made.length, 'link', 'links')}, from rows ${ranges(made)}.` : 'No link was made.'}</p>
      {refused.length > 0 && <p>Not made: {refused.join('; ')}.</p>}
      {unsettled.length > 0 && (
        <p>
          No answer for {unsettled.length === 1 ? 'row' : 'rows'} {ranges(unsettled)}: {unsettled.length === 1 ? 'its link may' : 'their links may'} or may not
          have been made.
        </p>
      )}
      {unsent.length > 0 && <p>Not sent yet: rows {ranges(unsent)}.</p>}
      {(stop || unsettled.length > 0) && <p>Create links again to go on: the rows are sent with the same keys, and no link is made twice.</p>}
    </div>
  );
}
