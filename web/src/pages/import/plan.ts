import { API_LIMITS } from '../../../../src/platform/api-limits.js';
import type { CheckedRow } from './check-rows.js';
import type { Outcome, SentBody } from './import-store.js';

const PRICE = API_LIMITS.prices.extraLinkCredits;

/**
 * What Create links does with a row: nothing (`bad`, or `made` already by this import), send it again
 * as it was sent before without an answer (`resend`), or send it as one of the month's free links or
 * as a paid one.
 */
export type Plan = 'bad' | 'made' | 'resend' | 'free' | 'paid';

export interface PlannedRow extends CheckedRow {
  plan: Plan;
  outcome?: Outcome;
  /** The body to send: the one sent before for `resend`, with `maxCredits` for `paid`. */
  send?: SentBody;
}

/**
 * Rows in order: the first ones to be sent take the free links left (`freeLinks`, from a quote), the
 * rest are paid. Rows are sent in this order, one at a time, so the free ones are the ones planned
 * free (the API spends a free link first whatever `maxCredits` says).
 */
export function planRows(rows: CheckedRow[], outcomes: Record<string, Outcome>, freeLinks: number): PlannedRow[] {
  let free = freeLinks;
  return rows.map((row) => {
    const outcome = outcomes[row.key];
    // First: a row repeating an earlier one shares its key, and so its outcome, but is not its own link.
    if (row.problem) return { ...row, plan: 'bad' };
    if (outcome?.state === 'made') return { ...row, plan: 'made', outcome };
    if (outcome?.state === 'sending') return { ...row, plan: 'resend', outcome, send: outcome.body };
    if (free > 0) {
      free--;
      return { ...row, plan: 'free', outcome, send: row.body };
    }
    return { ...row, plan: 'paid', outcome, send: { ...row.body, maxCredits: PRICE } };
  });
}

export interface Totals {
  bad: number;
  made: number;
  free: number;
  paid: number;
  resend: number;
  /** What the paid rows cost, and the most the resent rows could (a replay costs nothing). */
  credits: number;
}

export function totals(rows: PlannedRow[]): Totals {
  const count = (plan: Plan) => rows.filter((row) => row.plan === plan).length;
  const resendCredits = rows.filter((row) => row.plan === 'resend').reduce((sum, row) => sum + (row.send?.maxCredits ?? 0), 0);
  return {
    bad: count('bad'),
    made: count('made'),
    free: count('free'),
    paid: count('paid'),
    resend: count('resend'),
    credits: count('paid') * PRICE + resendCredits,
  };
}

/** Row numbers as short ranges: 1–3, 7, 9–10. */
export function ranges(numbers: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < numbers.length; i++) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++;
    parts.push(j === i ? String(numbers[i]) : `${numbers[i]}–${numbers[j]}`);
    i = j;
  }
  return parts.join(', ');
}
