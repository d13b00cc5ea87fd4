import { useRef, useState } from 'preact/hooks';
import { api, ApiError, newIdempotencyKey } from '../../api/client.js';
import type { Link, Quote } from '../../api/types.js';
import { ConfirmDialog } from '../../ui/dialog.js';
import { ErrorMessage, Field, Submit, submitted } from '../../ui/form.js';
import { formatNumber } from '../../ui/format.js';
import { useAction } from '../../ui/use-action.js';

const EXTRA_LINK_CREDITS = 10;

const OVERRIDES = {
  invalid_request: 'Check the fields: the destination must be a full web address (https://…), the alias 40 letters, digits or dashes at most.',
  request_conflict: 'That alias is taken, or this link is still being made. Choose another alias, or wait a moment and try again: it will not be made twice.',
  link_allowance_required: 'The 25 free links of this month are used up. Another link costs 10 purchased credits: confirm to pay for it.',
  credits_required: `Your purchased balance is too small for another link (it costs ${EXTRA_LINK_CREDITS} credits). See Usage and billing for how to get credits; nothing was spent.`,
};

interface Fields {
  target: string;
  alias: string;
  title: string;
  tags: string;
}

/** A failure after which the same creation may be sent again: the server may or may not have made it. */
const mayRetry = (error: unknown): boolean =>
  error instanceof ApiError && (error.code === 'network' || error.code === 'unexpected' || error.status >= 500 || error.status === 429);

const bodyOf = (fields: Fields, maxCredits: number) => ({
  target: fields.target.trim(),
  ...(fields.alias.trim() && { alias: fields.alias.trim() }),
  ...(fields.title.trim() && { title: fields.title.trim() }),
  ...(fields.tags.trim() && { tags: fields.tags.trim() }),
  ...(maxCredits > 0 && { maxCredits }),
});

/**
 * A new link. One Idempotency-Key per submission, kept while the same body is retried after an
 * uncertain answer, so double clicks and retries never make two links. Past the month's free links
 * the price is quoted and the person confirms before any credits are spent.
 */
export function NewLinkForm({ onCreated }: { onCreated: (link: Link) => void }) {
  const [fields, setFields] = useState<Fields>({ target: '', alias: '', title: '', tags: '' });
  const [quote, setQuote] = useState<Quote>();
  const attempt = useRef<{ body: string; key: string } | undefined>(undefined);
  const set = (name: keyof Fields) => (value: string) => setFields((current) => ({ ...current, [name]: value }));

  const create = useAction(async (maxCredits: number) => {
    const body = bodyOf(fields, maxCredits);
    const serialized = JSON.stringify(body);
    if (attempt.current?.body !== serialized) attempt.current = { body: serialized, key: newIdempotencyKey() };
    try {
      const link = await api<Link>('POST', '/links', body, { idempotencyKey: attempt.current.key });
      attempt.current = undefined;
      setQuote(undefined);
      onCreated(link);
    } catch (error) {
      if (!mayRetry(error)) attempt.current = undefined;
      if (error instanceof ApiError && error.code === 'link_allowance_required') setQuote(await api<Quote>('POST', '/quotes', { action: 'link.create' }));
      else throw error;
    }
  });

  return (
    <form class="form-block" onSubmit={submitted(() => void create.run(0))}>
      <Field
        label="Destination URL"
        type="url"
        name="target"
        required
        placeholder="https://example.com/spring-campaign"
        value={fields.target}
        onValue={set('target')}
      />
      <Field
        label="Alias"
        name="alias"
        maxLength={40}
        pattern="[A-Za-z0-9_-]+"
        value={fields.alias}
        onValue={set('alias')}
        hint="Optional: the end of the short URL, such as spring-sale. Letters, digits, - and _."
      />
      <Field label="Title" name="title" maxLength={100} value={fields.title} onValue={set('title')} hint="Optional: for you, to find the link again." />
      <Field label="Tags" name="tags" maxLength={160} value={fields.tags} onValue={set('tags')} hint="Optional: words to search by, such as poster, spring." />
      <ErrorMessage error={quote ? null : create.error} overrides={OVERRIDES} />
      <Submit label="Create link" busy={create.busy && !quote} busyText="Making your link…" />
      <ConfirmDialog
        open={quote !== undefined}
        title="Pay for this link?"
        confirmLabel={`Spend ${quote?.maxCredits ?? EXTRA_LINK_CREDITS} credits`}
        busy={create.busy}
        error={create.error}
        errorOverrides={OVERRIDES}
        onConfirm={() => void create.run(quote?.maxCredits ?? EXTRA_LINK_CREDITS)}
        onCancel={() => {
          setQuote(undefined);
          create.clearError();
        }}
      >
        {quote && <QuoteText quote={quote} />}
      </ConfirmDialog>
    </form>
  );
}

function QuoteText({ quote }: { quote: Quote }) {
  const price = quote.credits ?? EXTRA_LINK_CREDITS;
  return (
    <>
      <p>
        The 25 free links of this month are used up. This link costs <strong>{formatNumber(price)} credits</strong> from your purchased balance
        {quote.purchasedAvailable !== undefined && ` (${formatNumber(quote.purchasedAvailable)} available)`}.
      </p>
      {quote.canSpend === false && <p>Your balance is too small for it now: see Usage and billing for how to get credits.</p>}
      <p>Free links come back on the first day of next month (UTC).</p>
    </>
  );
}
