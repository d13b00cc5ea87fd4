import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { PageProps } from '../routes.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../ui/form.js';
import { useAction } from '../ui/use-action.js';
import { PASSWORD_HINT, WEAK_PASSWORD } from './signup-page.js';
import { ApiError } from '../api/client.js';
import { useResource } from '../ui/use-resource.js';
import { Busy } from '../ui/form.js';
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

const SPENT: Record<string, string> = {
  used: 'This reset link was used already: each link works once (a newer reset link also replaces it). Ask for a new one if you still need to reset your password.',
  expired: 'This reset link has expired: it works for an hour. Ask for a new one.',
  unknown: 'This reset link is not valid: check that the whole address from the mail was opened, or ask for a new one.',
};

function ConfirmReset({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  // The link is checked first, so a used one says so at once rather than after a password is typed.
  const check = useResource(() => api<{ state: 'valid' | 'used' | 'expired' | 'unknown' }>('POST', '/auth/reset/check', { token }));
  const confirm = useAction(async () => {
    await api('POST', '/auth/reset/confirm', { token, password });
    setDone(true);
  });
  const state = check.data?.state;
  // The link was good a moment ago: a refusal now is about the password, unless the link was used meanwhile.
  const weak = confirm.error instanceof ApiError && confirm.error.code === 'invalid_request' ? WEAK_PASSWORD : undefined;
  if (state !== undefined && state !== 'valid') {
    return (
      <>
        <h1 tabIndex={-1}>This reset link cannot be used</h1>
        <div role="alert">
          <Notice kind="warning">
            <p>{SPENT[state]}</p>
          </Notice>
        </div>
        <p>
          <a
            href="/app/reset"
            onClick={(event) => {
              // A fresh page: this one holds the spent token.
              event.preventDefault();
              location.assign('/app/reset');
            }}
          >
            Ask for a new reset link
          </a>
        </p>
      </>
    );
  }
  return (
    <>
      <h1 tabIndex={-1}>Choose a new password</h1>
      <Busy busy={check.loading} text="Checking the link…" />
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
            error={weak}
          />
          <ErrorMessage error={weak ? null : (confirm.error ?? check.error)} />
          <Submit label="Set new password" busy={confirm.busy} busyText="Saving…" />
        </form>
      )}
    </>
  );
}
