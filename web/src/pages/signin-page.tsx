import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Account } from '../api/types.js';
import { sessionEnded, setSession } from '../session.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../ui/form.js';
import { KeepTrialsCheck } from './home/keep-trials-check.js';
import { chooseToKeep, keepableTrials } from './home/trial-store.js';
import { useAction } from '../ui/use-action.js';

const OVERRIDES = {
  api_key_invalid: 'The email or the password is not right, or the address is not verified yet (open the link in the verification mail first).',
  invalid_request: 'Enter your email address and your password.',
};

const CODE_OVERRIDES = {
  ...OVERRIDES,
  api_key_invalid: 'That code is not right, or it was used already. Enter the code your app shows now.',
  rate_limited: 'Too many attempts just now. Wait a minute and try again.',
};

/** After sign-in the app moves on by itself (src: app.tsx sends a signed-in person away from this page). */
export default function SigninPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // With two-factor sign-in on, the password is answered with a request for the app's code.
  const [code, setCode] = useState<string>();
  const [trials] = useState(() => keepableTrials().length);
  const [keep, setKeep] = useState(true);
  const [ended] = useState(sessionEnded);
  const signIn = useAction(async () => {
    if (trials > 0) chooseToKeep(keep);
    const answer = await api<{ account: Account } | { status: 'code_required' }>('POST', '/auth/signin', {
      email,
      password,
      ...(code ? { code: code.trim() } : {}),
    });
    if ('account' in answer) setSession(answer.account);
    else setCode('');
  });
  return (
    <section class="narrow">
      <h1 tabIndex={-1}>Sign in</h1>
      {ended && (
        <Notice kind="warning">
          <p>Your session ended. Sign in again to carry on where you were: an edit you had not saved is kept and comes back.</p>
        </Notice>
      )}
      <form onSubmit={submitted(() => void signIn.run())}>
        <Field label="Email" type="email" name="email" autoComplete="username" required value={email} onValue={setEmail} />
        <Field label="Password" type="password" name="password" autoComplete="current-password" required value={password} onValue={setPassword} />
        {code !== undefined && (
          <Field
            label="Code"
            autoComplete="one-time-code"
            required
            value={code}
            onValue={setCode}
            hint="Two-factor sign-in is on: enter the code your authenticator app shows, or a recovery code."
          />
        )}
        <KeepTrialsCheck count={trials} checked={keep} onChange={setKeep} />
        <ErrorMessage error={signIn.error} overrides={code === undefined ? OVERRIDES : CODE_OVERRIDES} />
        <Submit label="Sign in" busy={signIn.busy} busyText="Signing in…" />
      </form>
      <p>
        <a href="/app/reset">Forgot your password?</a>
      </p>
      <p>
        New here? <a href="/app/signup">Create an account</a>.
      </p>
    </section>
  );
}
