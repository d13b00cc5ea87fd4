import type { Quote } from '../../api/types.js';
import { formatNumber } from '../../ui/format.js';

export const EXTRA_LINK_CREDITS = 10;

/** What a link past the month's free links costs, as the quote says, before anything is spent. */
export function QuoteText({ quote, count = 1 }: { quote: Quote; count?: number }) {
  const price = (quote.credits ?? EXTRA_LINK_CREDITS) * count;
  return (
    <>
      <p>
        The 25 free links of this month are used up. {count === 1 ? 'This link costs' : `These ${count} links cost`}{' '}
        <strong>{formatNumber(price)} credits</strong> from your purchased balance
        {quote.purchasedAvailable !== undefined && ` (${formatNumber(quote.purchasedAvailable)} available)`}.
      </p>
      {quote.canSpend === false && <p>Your balance is too small for it now: see Usage and billing for how to get credits.</p>}
      <p>Free links come back on the first day of next month (UTC).</p>
    </>
  );
}
