import { api, ApiError } from '../../api/client.js';
import type { Link } from '../../api/types.js';
import { saveImport, type MadeLink, type Outcome, type SavedImport } from './import-store.js';
import { patiently } from './patience.js';
import type { PlannedRow } from './plan.js';

export interface RunEvents {
  /** Rows answered so far of those this run sends. */
  progress: (done: number, total: number) => void;
  waiting: (seconds: number | undefined) => void;
  /** An outcome changed (and is saved). */
  changed: () => void;
}

/** Where a run stopped: the row whose request got no answer (or the session ended), and why. */
export interface RunStop {
  row: number;
  error: unknown;
}

/**
 * Sends the rows that are to be made, one at a time and in order, each with its own key. A row's
 * outcome is saved before its request leaves and again when the answer comes. A row the API refuses
 * (an alias taken meanwhile, the free links run out) is marked and the run goes on; a request without
 * an answer (network, 5xx) or an ended session stops the run there, since the next ones would fare
 * no better: Create links again resends that row with the same key and body, and goes on.
 */
export async function createLinks(rows: PlannedRow[], saved: SavedImport, events: RunEvents): Promise<RunStop | undefined> {
  const todo = rows.filter((row) => row.send !== undefined && (row.plan === 'free' || row.plan === 'paid' || row.plan === 'resend'));
  for (const [done, row] of todo.entries()) {
    events.progress(done, todo.length);
    const body = row.send!;
    const before = saved.outcomes[row.key];
    record(saved, row.key, { state: 'sending', body }, events);
    try {
      const link = await patiently(() => api<Link>('POST', '/links', body, { idempotencyKey: row.key }), events.waiting);
      record(saved, row.key, { state: 'made', body, link: madeLink(link) }, events);
    } catch (error) {
      const code = error instanceof ApiError ? error.code : 'unexpected';
      if (error instanceof ApiError && error.status === 401) {
        if (before) record(saved, row.key, before, events);
        else forget(saved, row.key, events);
        return { row: row.row, error };
      }
      if (noAnswer(error)) return { row: row.row, error };
      // A resent row refused as a conflict may have been made by its first request (from another
      // network, or on an earlier day, the key is no longer replayed): it stays unsettled.
      if (row.plan === 'resend' && code === 'request_conflict') continue;
      record(saved, row.key, { state: 'failed', body, error: code }, events);
    }
  }
  events.progress(todo.length, todo.length);
  return undefined;
}

/** No answer from the service: the request may or may not have made its link. */
export const noAnswer = (error: unknown): boolean =>
  !(error instanceof ApiError) || error.code === 'network' || error.code === 'unexpected' || error.status >= 500 || error.status === 429;

const madeLink = ({ id, slug, shortUrl, qrUrl, title }: Link): MadeLink => ({ id, slug, shortUrl, qrUrl, title });

function record(saved: SavedImport, key: string, outcome: Outcome, events: RunEvents): void {
  saved.outcomes[key] = outcome;
  saveImport(saved);
  events.changed();
}

function forget(saved: SavedImport, key: string, events: RunEvents): void {
  delete saved.outcomes[key];
  saveImport(saved);
  events.changed();
}
