import { navigate } from '../router.js';
import { NewLinkForm } from './links/new-link-form.js';

export default function NewLinkPage() {
  return (
    <section>
      <h1 tabIndex={-1}>New link</h1>
      <p>
        One link gives you a short URL to share and a QR URL to print, each counted on its own. 25 links a month are free; each one after that costs 10
        purchased credits, and you are asked first.
      </p>
      <NewLinkForm onCreated={(link) => navigate(`/app/links/${link.id}?created=1`)} />
      <p>
        <a href="/app/links">Back to your links</a>
      </p>
    </section>
  );
}
