import { useEffect } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Account } from '../api/types.js';
import type { PageProps } from '../routes.js';
import { SIGNED_IN_HOME } from '../routes.js';
import { navigate } from '../router.js';
import { setSession } from '../session.js';
import { Busy, ErrorMessage } from '../ui/form.js';
import { useAction } from '../ui/use-action.js';

const OVERRIDES = {
  invalid_request:
    'This verification link is not valid any more: it was used already, or it expired. Sign in if you verified before, or sign up again for a new link.',
};

/** The token comes in the query or the fragment; it leaves the address bar before the request. */
export const tokenFrom = (query: URLSearchParams): string | null => query.get('token') ?? new URLSearchParams(location.hash.replace(/^#/, '')).get('token');

export default function VerifyPage({ query }: PageProps) {
  const verify = useAction(async (token: string) => {
    const { account } = await api<{ account: Account }>('POST', '/auth/verify', { token });
    setSession(account);
    navigate(SIGNED_IN_HOME, { replace: true });
  });
  useEffect(() => {
    const token = tokenFrom(query);
    if (token === null) return;
    history.replaceState(null, '', '/app/verify');
    void verify.run(token);
  }, []);
  const missing = tokenFrom(query) === null && !verify.busy && !verify.error;
  return (
    <section class="narrow">
      <h1 tabIndex={-1}>Verify your email</h1>
      <Busy busy={verify.busy} text="Verifying your address…" />
      <ErrorMessage error={verify.error} overrides={OVERRIDES} />
      {missing && <p>Open the link from the verification mail to verify your address.</p>}
      <p>
        <a href="/app/signin">Sign in</a> or <a href="/app/signup">sign up</a>.
      </p>
    </section>
  );
}
