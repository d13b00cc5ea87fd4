import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { PageProps } from '../routes.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../ui/form.js';
import { useAction } from '../ui/use-action.js';

const REASON_MAX = 1000;

/** "Report this link" (CONTRACT.md): anyone tells the operator that a short link points somewhere harmful. */
export default function ReportPage({ query }: PageProps) {
  const [url, setUrl] = useState(query.get('url') ?? '');
  const [reason, setReason] = useState('');
  const [sent, setSent] = useState(false);
  const send = useAction(async () => {
    await api('POST', '/reports', { url: url.trim(), reason: reason.trim() }, { anonymous: true });
    setSent(true);
  });
  if (sent) {
    return (
      <section class="narrow">
        <h1 tabIndex={-1}>Report sent</h1>
        <div role="status">
          <Notice kind="success">Thank you. The people who run this service will look at the link and stop it if it breaks the rules.</Notice>
        </div>
        <p>
          <a href="/">Home page</a>
        </p>
      </section>
    );
  }
  return (
    <section class="narrow">
      <h1 tabIndex={-1}>Report a link</h1>
      <p>Tell us about a short link that leads to phishing, malware, scams or anything else harmful.</p>
      <form onSubmit={submitted(() => void send.run())}>
        <Field
          label="Short link"
          type="text"
          required
          value={url}
          onValue={setUrl}
          hint="The short link as you saw it, for example on a poster or in a message."
        />
        <ReasonField value={reason} onValue={setReason} />
        <ErrorMessage
          error={send.error}
          overrides={{
            not_found: 'That is not a short link of this service. Check the address and try again.',
            invalid_request: `Enter the short link, and say what is wrong in at most ${REASON_MAX} characters.`,
            rate_limited: 'You have sent several reports just now. Please wait a minute and try again.',
          }}
        />
        <Submit label="Send report" busy={send.busy} busyText="Sending…" />
      </form>
    </section>
  );
}

function ReasonField({ value, onValue }: { value: string; onValue: (value: string) => void }) {
  return (
    <div class="field">
      <label for="report-reason">What is wrong</label>
      <textarea
        id="report-reason"
        required
        maxLength={REASON_MAX}
        rows={5}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-describedby="report-reason-hint"
      />
      <p class="hint" id="report-reason-hint">
        For example: it asks for a bank password, or it downloads a program.
      </p>
    </div>
  );
}
