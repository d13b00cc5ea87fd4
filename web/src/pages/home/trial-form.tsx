import { useRef, useState } from 'preact/hooks';
import { newIdempotencyKey } from '../../api/client.js';
import type { LinkCreated } from '../../api/types.js';
import { CopyButton } from '../../ui/copy-button.js';
import { ErrorMessage, Field, Submit, submitted } from '../../ui/form.js';
import { formatDateTime } from '../../ui/format.js';
import { useAction } from '../../ui/use-action.js';

const OVERRIDES = {
  invalid_request: 'Enter a full web address starting with https:// or http://.',
  rate_limited: 'You have made the trial links allowed from your network today (3 a day). Create an account for more.',
};

/** Where trial links and their tokens stay: in this browser only, never in a URL. */
export const TRIAL_STORE = 'trial-links';

function remember(link: LinkCreated): void {
  try {
    const saved = JSON.parse(localStorage.getItem(TRIAL_STORE) ?? '[]') as unknown[];
    saved.unshift({ id: link.id, token: link.trialToken, expiresAt: link.expiresAt });
    localStorage.setItem(TRIAL_STORE, JSON.stringify(saved.slice(0, 20)));
  } catch {
    // Storage may be off (private mode): the link still works, only its page cannot be reopened here.
  }
}

/** A trial link without an account: the API's no-key creation, with its limits. */
export function TrialForm({ create }: { create: (target: string, idempotencyKey: string) => Promise<LinkCreated> }) {
  const [target, setTarget] = useState('');
  const [link, setLink] = useState<LinkCreated>();
  // One Idempotency-Key per link asked for: a retry of the same address after a lost answer reuses it.
  const attempt = useRef<{ target: string; key: string } | undefined>(undefined);
  const shorten = useAction(async () => {
    const wanted = target.trim();
    if (attempt.current?.target !== wanted) attempt.current = { target: wanted, key: newIdempotencyKey() };
    const made = await create(wanted, attempt.current.key);
    attempt.current = undefined;
    remember(made);
    setLink(made);
  });
  return (
    <section aria-labelledby="trial-heading" class="card">
      <h2 id="trial-heading">Try it without an account</h2>
      <form onSubmit={submitted(() => void shorten.run())}>
        <Field label="Long URL" type="url" name="target" required placeholder="https://example.com/a/long/address" value={target} onValue={setTarget} hint="Trial links work for 7 days; 3 a day from one network." />
        <ErrorMessage error={shorten.error} overrides={OVERRIDES} />
        <Submit label="Shorten" busy={shorten.busy} busyText="Making your link…" />
      </form>
      <div role="status">
        {link && (
          <dl class="result">
            <dt>Short URL</dt>
            <dd>
              <a href={link.shortUrl} class="mono">
                {link.shortUrl}
              </a>{' '}
              <CopyButton text={link.shortUrl} label="Copy short URL" />
            </dd>
            <dt>QR URL</dt>
            <dd>
              <span class="mono">{link.qrUrl}</span> <CopyButton text={link.qrUrl} label="Copy QR URL" />
            </dd>
            {link.expiresAt !== undefined && (
              <>
                <dt>Works until</dt>
                <dd>{formatDateTime(link.expiresAt)}</dd>
              </>
            )}
          </dl>
        )}
      </div>
    </section>
  );
}
