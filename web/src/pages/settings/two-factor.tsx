import type { Static } from '@sinclair/typebox';
import { useState } from 'preact/hooks';
import type { TwoFactorSetup, TwoFactorStatus } from '../../../../src/accounts/auth-schemas.js';
import { api } from '../../api/client.js';
import { CopyButton } from '../../ui/copy-button.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';
import { useResource } from '../../ui/use-resource.js';
import './two-factor.css';

type Status = Static<typeof TwoFactorStatus>;
type Setup = Static<typeof TwoFactorSetup>;

const CODE_HINT = 'The 6-digit code your authenticator app shows now.';

/** Two-factor sign-in (CONTRACT.md): turned on with a code from the app, off with a code or a recovery code. */
export function TwoFactorSettings() {
  const status = useResource(() => api<Status>('GET', '/auth/two-factor'));
  const [recoveryCodes, setRecoveryCodes] = useState<string[]>();
  return (
    <section aria-labelledby="two-factor-heading">
      <h2 id="two-factor-heading">Two-factor sign-in</h2>
      <ErrorMessage error={status.error} />
      {recoveryCodes && <RecoveryCodes codes={recoveryCodes} />}
      {status.data?.enabled === false && (
        <TurnOn
          onDone={async (codes) => {
            setRecoveryCodes(codes);
            await status.reload();
          }}
        />
      )}
      {status.data?.enabled === true && (
        <TurnOff
          left={status.data.recoveryCodesLeft}
          onDone={async () => {
            setRecoveryCodes(undefined);
            await status.reload();
          }}
        />
      )}
    </section>
  );
}

function TurnOn({ onDone }: { onDone: (codes: string[]) => Promise<void> }) {
  const [setup, setSetup] = useState<Setup>();
  const [code, setCode] = useState('');
  const start = useAction(async () => setSetup(await api<Setup>('POST', '/auth/two-factor/setup', {})));
  const confirm = useAction(async () => {
    const { recoveryCodes } = await api<{ recoveryCodes: string[] }>('POST', '/auth/two-factor/confirm', { code: code.trim() });
    await onDone(recoveryCodes);
  });
  if (!setup) {
    return (
      <form onSubmit={submitted(() => void start.run())}>
        <p>Sign-in then asks for a code from an authenticator app on your phone as well as your password.</p>
        <ErrorMessage error={start.error} />
        <Submit label="Turn on two-factor sign-in" busy={start.busy} busyText="Preparing…" />
      </form>
    );
  }
  return (
    <form onSubmit={submitted(() => void confirm.run())}>
      <p>Scan this code with your authenticator app, or type the key below into it.</p>
      <img
        class="totp-qr"
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qrSvg)}`}
        width={200}
        height={200}
        alt="QR code of your two-factor key"
      />
      <p>
        Key: <code class="mono">{setup.secret}</code> <CopyButton text={setup.secret} label="Copy key" />
      </p>
      <Field label="Code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required value={code} onValue={setCode} hint={CODE_HINT} />
      <ErrorMessage error={confirm.error} overrides={{ invalid_request: 'That code is not right. Enter the code the app shows now.' }} />
      <Submit label="Confirm" busy={confirm.busy} busyText="Checking…" />
    </form>
  );
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div role="status">
      <Notice kind="success">
        <p>Two-factor sign-in is on. Keep these recovery codes somewhere safe: each signs you in once if you lose your phone. They are shown only now.</p>
        <ul class="plain mono">
          {codes.map((code) => (
            <li key={code}>{code}</li>
          ))}
        </ul>
        <CopyButton text={codes.join('\n')} label="Copy recovery codes" />
      </Notice>
    </div>
  );
}

function TurnOff({ left, onDone }: { left: number; onDone: () => Promise<void> }) {
  const [code, setCode] = useState('');
  const off = useAction(async () => {
    await api('POST', '/auth/two-factor/disable', { code: code.trim() });
    setCode('');
    await onDone();
  });
  return (
    <form onSubmit={submitted(() => void off.run())}>
      <p>
        Two-factor sign-in is on. {left} recovery {left === 1 ? 'code is' : 'codes are'} left.
      </p>
      <Field label="Code" autoComplete="one-time-code" required value={code} onValue={setCode} hint="A code from your app, or a recovery code." />
      <ErrorMessage
        error={off.error}
        overrides={{
          invalid_request: 'That code is not right, or it was used already.',
          rate_limited: 'Too many codes just now. Wait a minute and try again.',
        }}
      />
      <Submit label="Turn off two-factor sign-in" busy={off.busy} kind="danger" busyText="Turning off…" />
    </form>
  );
}
