import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { SiteInfo } from '../api/types.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../ui/form.js';
import { useAction } from '../ui/use-action.js';
import { useResource } from '../ui/use-resource.js';

export const PASSWORD_HINT = 'Hard to guess: at least 12 characters; three or four unrelated words work well.';

const OVERRIDES = {
  invalid_request: 'Check the email address, and choose a password that is harder to guess (longer, or a few unrelated words).',
  not_found: 'Sign-up is closed on this service: ask its operator for an account.',
};

export default function SignupPage() {
  const site = useResource(() => api<SiteInfo>('GET', '/site'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [sentTo, setSentTo] = useState<string>();
  const signUp = useAction(async () => {
    await api('POST', '/auth/signup', { email, password });
    setSentTo(email);
  });

  if (sentTo) {
    return (
      <section class="narrow">
        <h1 tabIndex={-1}>Check your email</h1>
        <Notice kind="success">
          <p>
            We sent a link to <strong>{sentTo}</strong>. Open it to verify your address; it signs you in. The link works for a limited time.
          </p>
        </Notice>
        <p>
          No mail after a few minutes? Check the spam folder, or <a href="/app/signin">sign in</a> if your address is verified already.
        </p>
      </section>
    );
  }
  return (
    <section class="narrow">
      <h1 tabIndex={-1}>Create an account</h1>
      {site.data?.signup === 'closed' && <Notice kind="warning">Sign-up is closed on this service: ask its operator for an account.</Notice>}
      <form onSubmit={submitted(() => void signUp.run())} noValidate={false}>
        <Field label="Email" type="email" name="email" autoComplete="email" required value={email} onValue={setEmail} />
        <Field
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={password}
          onValue={setPassword}
          hint={PASSWORD_HINT}
        />
        <ErrorMessage error={signUp.error} overrides={OVERRIDES} />
        <Submit label="Create account" busy={signUp.busy} busyText="Creating your account…" />
      </form>
      <p>
        Have an account? <a href="/app/signin">Sign in</a>.
      </p>
    </section>
  );
}
