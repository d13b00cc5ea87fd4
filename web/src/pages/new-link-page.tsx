import { navigate } from '../router.js';
import { formatNumber } from '../ui/format.js';
import { useResource } from '../ui/use-resource.js';
import { NewLinkForm } from './links/new-link-form.js';
import { quoteLink } from './links/quote-text.js';

export default function NewLinkPage() {
  return (
    <section>
      <h1 tabIndex={-1}>New link</h1>
      <p>
        One link gives you a short URL to share and a QR URL to print, each counted on its own. The first links of each month are free; each one after that
        costs 10 purchased credits, and you are asked first.
      </p>
      <FreeLinksLeft />
      <NewLinkForm onCreated={(link) => navigate(`/app/links/${link.id}?created=1`)} />
      <p>
        <a href="/app/links">Back to your links</a>
      </p>
    </section>
  );
}

/** The month's free links left of the server's allowance, from the same quote the price comes from; silent when it cannot be had. */
function FreeLinksLeft() {
  const quote = useResource(quoteLink);
  const free = quote.data?.freeLinks;
  const of = quote.data?.freeLinksPerMonth;
  if (free === undefined || of === undefined) return null;
  return (
    <p class="hint">
      {free > 0
        ? `${formatNumber(free)} of ${formatNumber(of)} free links left this month.`
        : `The ${formatNumber(of)} free links of this month are used up: the next link costs 10 credits.`}
    </p>
  );
}
