import { api } from '../../api/client.js';
import type { Quote, Usage } from '../../api/types.js';
import { formatNumber } from '../../ui/format.js';

export const EXTRA_LINK_CREDITS = 10;

/** A link's quote with the month's free links as the server counts them (FREE_LINKS_PER_MONTH), from the usage it reports. */
export type LinkQuote = Quote & { freeLinksPerMonth: number };

/** What a new (or kept) link would cost now, asked before anything is spent; nothing is reserved. */
export async function quoteLink(): Promise<LinkQuote> {
  const [quote, usage] = await Promise.all([api<Quote>('POST', '/quotes', { action: 'link.create' }), api<Usage>('GET', '/account/usage')]);
  return { ...quote, freeLinksPerMonth: usage.pricing.freeLinksPerMonth };
}

/** What a link past the month's free links costs, as the quote says, before anything is spent. */
export function QuoteText({ quote, count = 1 }: { quote: LinkQuote; count?: number }) {
  const price = (quote.credits ?? EXTRA_LINK_CREDITS) * count;
  return (
    <>
      <p>
        The {formatNumber(quote.freeLinksPerMonth)} free links of this month are used up. {count === 1 ? 'This link costs' : `These ${count} links cost`}{' '}
        <strong>{formatNumber(price)} credits</strong> from your purchased balance
        {quote.purchasedAvailable !== undefined && ` (${formatNumber(quote.purchasedAvailable)} available)`}.
      </p>
      {quote.canSpend === false && <p>Your balance is too small for it now: see Usage and billing for how to get credits.</p>}
      <p>Free links come back on the first day of next month (UTC).</p>
    </>
  );
}
