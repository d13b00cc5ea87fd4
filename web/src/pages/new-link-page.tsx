import { api } from '../api/client.js';
import type { Quote } from '../api/types.js';
import { navigate } from '../router.js';
import { plural } from '../ui/format.js';
import { useResource } from '../ui/use-resource.js';
import { NewLinkForm } from './links/new-link-form.js';

export default function NewLinkPage() {
  return (
    <section>
      <h1 tabIndex={-1}>New link</h1>
      <p>
        One link gives you a short URL to share and a QR URL to print, each counted on its own. 25 links a month are free; each one after that costs 10
        purchased credits, and you are asked first.
      </p>
      <FreeLinksLeft />
      <NewLinkForm onCreated={(link) => navigate(`/app/links/${link.id}?created=1`)} />
      <p>
        <a href="/app/links">Back to your links</a>
      </p>
    </section>
  );
}

/** The month's free links left, from the same quote the price comes from; silent when it cannot be had. */
function FreeLinksLeft() {
  const quote = useResource(() => api<Quote>('POST', '/quotes', { action: 'link.create' }));
  const free = quote.data?.freeLinks;
  if (free === undefined) return null;
  return (
    <p class="hint">
      {free > 0 ? `${plural(free, 'free link', 'free links')} left this month.` : 'The free links of this month are used up: the next link costs 10 credits.'}
    </p>
  );
}
