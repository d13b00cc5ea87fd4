import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { PageProps } from '../routes.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../ui/form.js';
import { useAction } from '../ui/use-action.js';
import { PASSWORD_HINT } from './signup-page.js';
import { tokenFrom } from './verify-page.js';

export default function ResetPage({ query }: PageProps) {
  // Kept in memory only: the address bar loses the token at once, so it is not left in the history.
  const [token] = useState(() => {
    const found = tokenFrom(query);
    if (found !== null) history.replaceState(null, '', '/app/reset');
    return found;
  });
  return <section class="narrow">{token === null ? <RequestReset /> : <ConfirmReset token={token} />}</section>;
}

function RequestReset() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const request = useAction(async () => {
    await api('POST', '/auth/reset', { email });
    setSent(true);
  });
  return (
    <>
      <h1 tabIndex={-1}>Reset your password</h1>
      {sent ? (
        <Notice kind="success">
          <p>If an account uses {email}, a mail with a link to choose a new password is on its way. The link works for a limited time.</p>
        </Notice>
      ) : (
        <form onSubmit={submitted(() => void request.run())}>
          <Field label="Email" type="email" name="email" autoComplete="email" required value={email} onValue={setEmail} />
          <ErrorMessage error={request.error} overrides={{ invalid_request: 'Enter the email address of your account.' }} />
          <Submit label="Send reset link" busy={request.busy} busyText="Sending…" />
        </form>
      )}
      <p>
        <a href="/app/signin">Back to sign in</a>
      </p>
    </>
  );
}

function ConfirmReset({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const confirm = useAction(async () => {
    await api('POST', '/auth/reset/confirm', { token, password });
    setDone(true);
  });
  return (
    <>
      <h1 tabIndex={-1}>Choose a new password</h1>
      {done ? (
        <Notice kind="success">
          <p>
            Your password is changed and every session is signed out. <a href="/app/signin">Sign in</a> with the new password.
          </p>
        </Notice>
      ) : (
        <form onSubmit={submitted(() => void confirm.run())}>
          <Field
            label="New password"
            type="password"
            name="password"
            autoComplete="new-password"
            required
            value={password}
            onValue={setPassword}
            hint={PASSWORD_HINT}
          />
          <ErrorMessage
            error={confirm.error}
            overrides={{
              invalid_request: 'Either this reset link is not valid any more (used or expired: ask for a new one), or the password is too easy to guess.',
            }}
          />
          <Submit label="Set new password" busy={confirm.busy} busyText="Saving…" />
        </form>
      )}
    </>
  );
}
