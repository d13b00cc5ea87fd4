import { useRef, useState } from 'preact/hooks';
import { newIdempotencyKey } from '../../api/client.js';
import type { LinkCreated } from '../../api/types.js';
import { CopyButton } from '../../ui/copy-button.js';
import { formatInstant } from '../../ui/format.js';
import { ErrorMessage, Field, Submit, submitted } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';
import { QrImage } from './qr-image.js';
import { rememberTrial } from './trial-store.js';
import { withScheme } from '../../ui/url.js';
import { TrialList } from './trial-list.js';

const OVERRIDES = {
  invalid_request: 'Enter a web address, such as example.org/menu. Addresses of this service and blocked sites cannot be shortened.',
  rate_limited: 'You have made the trial links allowed from your network today (3 a day). Create an account for more.',
};

/** A trial link without an account: the API's no-key creation, with its limits. */
export function TrialForm({ create }: { create: (target: string, idempotencyKey: string) => Promise<LinkCreated> }) {
  const [target, setTarget] = useState('');
  const [link, setLink] = useState<LinkCreated>();
  // One Idempotency-Key per link asked for: a retry of the same address after a lost answer reuses it.
  const attempt = useRef<{ target: string; key: string } | undefined>(undefined);
  const shorten = useAction(async () => {
    const wanted = withScheme(target);
    setTarget(wanted);
    if (attempt.current?.target !== wanted) attempt.current = { target: wanted, key: newIdempotencyKey() };
    const made = await create(wanted, attempt.current.key);
    attempt.current = undefined;
    rememberTrial(made);
    setLink(made);
  });
  return (
    <section aria-labelledby="trial-heading" class="card">
      <h2 id="trial-heading">Try it without an account</h2>
      <form onSubmit={submitted(() => void shorten.run())}>
        <Field
          label="Long URL"
          type="text"
          inputMode="url"
          name="target"
          required
          placeholder="example.com/a/long/address"
          value={target}
          onValue={setTarget}
          onBlur={() => setTarget(withScheme(target))}
          hint="https:// is added when you leave it out. Trial links work for 7 days; 3 a day from one network."
        />
        <ErrorMessage error={shorten.error} overrides={OVERRIDES} />
        <Submit label="Shorten" busy={shorten.busy} busyText="Making your link…" />
      </form>
      <div role="status">{link && <TrialResult link={link} />}</div>
      <TrialList fresh={link?.id} />
    </section>
  );
}

function TrialResult({ link }: { link: LinkCreated }) {
  return (
    <div class="trial-result">
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
            <dd>{formatInstant(link.expiresAt)}</dd>
          </>
        )}
      </dl>
      <QrImage id={link.id} trialToken={link.trialToken} label={`QR code that opens ${link.qrUrl}`} download={`qr-${link.slug}.svg`} />
      <p>
        <a href={`/app/trial/${link.id}`}>See this link’s page with its visits</a>. This browser remembers it for 7 days; nobody else can open that page. After
        7 days the link stops working: <a href="/app/signup">create an account</a> and keep it to make it last.
      </p>
    </div>
  );
}
