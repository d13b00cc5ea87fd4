import { api } from '../api/client.js';
import type { LinkCreated } from '../api/types.js';
import { useSession } from '../session.js';
import { TrialForm } from './home/trial-form.js';

export default function HomePage() {
  const session = useSession();
  return (
    <section>
      <h1 tabIndex={-1}>Short links, tracked QR codes and private analytics</h1>
      <p class="lead">
        Make a short link for a poster, a mail or a campaign, print its QR code, and see how often each is used: counted without cookies or tracking of people.
      </p>
      <TrialForm create={(target, idempotencyKey) => api<LinkCreated>('POST', '/links', { target }, { anonymous: true, idempotencyKey })} />
      <section aria-labelledby="account-heading">
        <h2 id="account-heading">With an account</h2>
        <p>Free links and recorded visits every month, API keys for your programs, and more capacity when you need it.</p>
        {session ? (
          <p>
            You are signed in as {session.email}. Go to your <a href="/app/links">links</a>, your <a href="/app/keys">API keys</a> or your{' '}
            <a href="/app/billing">usage and billing</a>.
          </p>
        ) : (
          <p class="actions">
            <a class="button primary" href="/app/signup">
              Create an account
            </a>
            <a class="button secondary" href="/app/signin">
              Sign in
            </a>
          </p>
        )}
      </section>
    </section>
  );
}
