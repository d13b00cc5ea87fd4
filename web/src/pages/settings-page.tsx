import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { navigate } from '../router.js';
import { setSession } from '../session.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../ui/form.js';
import { useAction } from '../ui/use-action.js';
import { PASSWORD_HINT } from './signup-page.js';
import { TwoFactorSettings } from './settings/two-factor.js';

export default function SettingsPage() {
  return (
    <section class="narrow">
      <h1 tabIndex={-1}>Account settings</h1>
      <ChangePassword />
      <TwoFactorSettings />
      <SignOutEverywhere />
    </section>
  );
}

function ChangePassword() {
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [done, setDone] = useState(false);
  const change = useAction(async () => {
    setDone(false);
    await api('POST', '/auth/password', { currentPassword, newPassword });
    setCurrent('');
    setNew('');
    setDone(true);
  });
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Change password</h2>
      <form onSubmit={submitted(() => void change.run())}>
        <Field label="Current password" type="password" autoComplete="current-password" required value={currentPassword} onValue={setCurrent} />
        <Field label="New password" type="password" autoComplete="new-password" required value={newPassword} onValue={setNew} hint={PASSWORD_HINT} />
        <ErrorMessage
          error={change.error}
          overrides={{
            api_key_invalid: 'The current password is not right.',
            invalid_request: 'The new password is too easy to guess: make it longer, or use a few unrelated words.',
          }}
        />
        <div role="status">{done && <Notice kind="success">Password changed. Your other sessions are signed out.</Notice>}</div>
        <Submit label="Change password" busy={change.busy} busyText="Saving…" />
      </form>
    </section>
  );
}

function SignOutEverywhere() {
  const signOutAll = useAction(async () => {
    await api('POST', '/auth/signout-all', {});
    setSession(null);
    navigate('/app/signin', { replace: true });
  });
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      <p>Signs you out here and in every other browser and device, for example after using a shared computer.</p>
      <form onSubmit={submitted(() => void signOutAll.run())}>
        <ErrorMessage error={signOutAll.error} />
        <Submit label="End all sessions" busy={signOutAll.busy} kind="secondary" busyText="Signing out…" />
      </form>
    </section>
  );
}
