import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Account } from '../api/types.js';
import { setSession } from '../session.js';
import { ErrorMessage, Field, Submit, submitted } from '../ui/form.js';
import { useAction } from '../ui/use-action.js';

const OVERRIDES = {
  api_key_invalid: 'The email or the password is not right, or the address is not verified yet (open the link in the verification mail first).',
  invalid_request: 'Enter your email address and your password.',
};

/** After sign-in the app moves on by itself (src: app.tsx sends a signed-in person away from this page). */
export default function SigninPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useAction(async () => {
    const { account } = await api<{ account: Account }>('POST', '/auth/signin', { email, password });
    setSession(account);
  });
  return (
    <section class="narrow">
      <h1 tabIndex={-1}>Sign in</h1>
      <form onSubmit={submitted(() => void signIn.run())}>
        <Field label="Email" type="email" name="email" autoComplete="username" required value={email} onValue={setEmail} />
        <Field label="Password" type="password" name="password" autoComplete="current-password" required value={password} onValue={setPassword} />
        <ErrorMessage error={signIn.error} overrides={OVERRIDES} />
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
