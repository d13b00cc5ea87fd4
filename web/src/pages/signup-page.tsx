import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { SiteInfo } from '../api/types.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../ui/form.js';
import { useAction } from '../ui/use-action.js';
import { useResource } from '../ui/use-resource.js';
import { ApiError } from '../api/client.js';
import { KeepTrialsCheck } from './home/keep-trials-check.js';
import { chooseToKeep, keepableTrials } from './home/trial-store.js';

/** The rule the server applies (src/accounts/password-strength.ts), as the README states it. */
export const PASSWORD_HINT = 'At least 8 characters, and hard to guess: three or four unrelated words work well; names, dates and keyboard rows do not.';

const OVERRIDES = {
  not_found: 'Sign-up is closed on this service: ask its operator for an account.',
};

export const WEAK_PASSWORD = 'This password is too easy to guess. Choose a longer one: three or four unrelated words work well.';
const BAD_EMAIL = 'Enter your email address, such as jane@example.org.';

/**
 * Which field a refused sign-up (400 invalid_request) is about: the browser checks the address's form
 * first, so an address that looks right means the password was refused as too easy to guess.
 */
export function fieldError(error: unknown, email: string): { email?: string; password?: string } | undefined {
  if (!(error instanceof ApiError) || error.code !== 'invalid_request') return undefined;
  return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email.trim()) ? { password: WEAK_PASSWORD } : { email: BAD_EMAIL };
}

export default function SignupPage() {
  const site = useResource(() => api<SiteInfo>('GET', '/site'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [sentTo, setSentTo] = useState<string>();
  const [trials] = useState(() => keepableTrials().length);
  const [keep, setKeep] = useState(true);
  const signUp = useAction(async () => {
    if (trials > 0) chooseToKeep(keep);
    await api('POST', '/auth/signup', { email, password });
    setSentTo(email);
  });

  const atField = fieldError(signUp.error, email);
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
        <Field label="Email" type="email" name="email" autoComplete="email" required value={email} onValue={setEmail} error={atField?.email} />
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
          error={atField?.password}
        />
        <KeepTrialsCheck count={trials} checked={keep} onChange={setKeep} />
        <ErrorMessage error={atField ? null : signUp.error} overrides={OVERRIDES} />
        <Submit label="Create account" busy={signUp.busy} busyText="Creating your account…" />
      </form>
      <p>
        Have an account? <a href="/app/signin">Sign in</a>.
      </p>
    </section>
  );
}
