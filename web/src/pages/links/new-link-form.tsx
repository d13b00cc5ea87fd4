import { useRef, useState } from 'preact/hooks';
import { api, ApiError, newIdempotencyKey } from '../../api/client.js';
import type { Link } from '../../api/types.js';
import { ConfirmDialog } from '../../ui/dialog.js';
import { ErrorMessage, Field, Submit, submitted } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';
import { DESTINATION_REFUSED, withScheme } from '../../ui/url.js';
import { bodyOf, EMPTY_FIELDS, type Fields } from './new-link-fields.js';
import { EXTRA_LINK_CREDITS, quoteLink, QuoteText, type LinkQuote } from './quote-text.js';

const OVERRIDES = {
  invalid_request: 'Check the fields: the destination must be a web address such as example.org/menu, the alias 40 letters, digits, - or _ at most.',
  request_conflict: 'This link is still being made. Wait a moment and try again: it will not be made twice.',
  link_allowance_required: 'The free links of this month are used up. Another link costs 10 purchased credits: confirm to pay for it.',
  credits_required: `Your purchased balance is too small for another link (it costs ${EXTRA_LINK_CREDITS} credits). See Usage and billing for how to get credits; nothing was spent.`,
};

/** A failure after which the same creation may be sent again: the server may or may not have made it. */
const mayRetry = (error: unknown): boolean =>
  error instanceof ApiError && (error.code === 'network' || error.code === 'unexpected' || error.status >= 500 || error.status === 429);

/** A taken alias, said at the Alias field with a free one to take instead. */
interface AliasTaken {
  alias: string;
  suggestion?: string;
}

/**
 * A new link. One Idempotency-Key per submission, kept while the same body is retried after an
 * uncertain answer, so double clicks and retries never make two links. Past the month's free links
 * the price is quoted before anything is sent, and the person confirms before any credits are spent
 * (a 402 from a race with another tab leads to the same quote).
 */
export function NewLinkForm({ onCreated }: { onCreated: (link: Link) => void }) {
  const [fields, setFields] = useState<Fields>(EMPTY_FIELDS);
  const [quote, setQuote] = useState<LinkQuote>();
  const [taken, setTaken] = useState<AliasTaken>();
  const [refused, setRefused] = useState<string>();
  const attempt = useRef<{ body: string; key: string } | undefined>(undefined);
  const set = (name: keyof Fields) => (value: string) => setFields((current) => ({ ...current, [name]: value }));

  const create = useAction(async (maxCredits: number) => {
    const body = bodyOf(fields, maxCredits);
    const serialized = JSON.stringify(body);
    if (attempt.current?.body !== serialized) attempt.current = { body: serialized, key: newIdempotencyKey() };
    setTaken(undefined);
    setRefused(undefined);
    // A taken alias is said at the field before anything is sent (and again if it is taken meanwhile).
    if (body.alias && maxCredits === 0 && (await aliasTaken(body.alias, setTaken))) return;
    // Past the month's free links the price is asked first: the creation would only be refused (402).
    if (maxCredits === 0) {
      const price = await quoteLink();
      if (price.freeLinks === 0) return setQuote(price);
    }
    try {
      const link = await api<Link>('POST', '/links', body, { idempotencyKey: attempt.current.key });
      attempt.current = undefined;
      setQuote(undefined);
      onCreated(link);
    } catch (error) {
      if (!mayRetry(error)) attempt.current = undefined;
      if (error instanceof ApiError && error.code === 'link_allowance_required') setQuote(await quoteLink());
      else if (error instanceof ApiError && error.code === 'request_conflict' && body.alias && (await aliasTaken(body.alias, setTaken))) setQuote(undefined);
      else if (error instanceof ApiError && error.code === 'invalid_request') setRefused(fields.target);
      else throw error;
    }
  });

  const aliasError = taken && taken.alias === fields.alias.trim() && (
    <>
      The alias {taken.alias} is taken.
      {taken.suggestion && (
        <>
          {' '}
          <strong>{taken.suggestion}</strong> is free:{' '}
          <button type="button" class="link-button" onClick={() => set('alias')(taken.suggestion!)}>
            Use {taken.suggestion}
          </button>
        </>
      )}
    </>
  );

  return (
    <form class="form-block" onSubmit={submitted(() => void create.run(0))}>
      <Field
        label="Destination URL"
        type="text"
        inputMode="url"
        autoComplete="url"
        name="target"
        required
        placeholder="example.com/spring-campaign"
        value={fields.target}
        onValue={set('target')}
        onBlur={() => set('target')(withScheme(fields.target))}
        error={refused !== undefined && refused === fields.target ? DESTINATION_REFUSED : undefined}
        hint="https:// is added when you leave it out."
      />
      <Field
        label="Alias"
        name="alias"
        maxLength={40}
        // The browser compiles `pattern` with the `v` flag, where a bare "-" inside a class is an error.
        pattern="[A-Za-z0-9_\-]+"
        value={fields.alias}
        onValue={set('alias')}
        error={aliasError || undefined}
        hint="Optional: the end of the short URL, such as spring-sale. Letters, digits, - and _."
      />
      <Field label="Title" name="title" maxLength={100} value={fields.title} onValue={set('title')} hint="Optional: for you, to find the link again." />
      <Field label="Tags" name="tags" maxLength={160} value={fields.tags} onValue={set('tags')} hint="Optional: words to search by, such as poster, spring." />
      <fieldset class="utm">
        <legend>Campaign tracking (optional)</legend>
        <p class="hint">Added to the destination as utm_source, utm_medium and utm_campaign, for the destination’s own analytics.</p>
        <Field label="UTM source" name="utm_source" maxLength={100} placeholder="poster" value={fields.utmSource} onValue={set('utmSource')} />
        <Field label="UTM medium" name="utm_medium" maxLength={100} placeholder="print" value={fields.utmMedium} onValue={set('utmMedium')} />
        <Field label="UTM campaign" name="utm_campaign" maxLength={100} placeholder="spring-sale" value={fields.utmCampaign} onValue={set('utmCampaign')} />
      </fieldset>
      <ErrorMessage error={quote || taken ? null : create.error} overrides={OVERRIDES} />
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

/** Whether the alias is taken (then the field says so, with a free one); false when the conflict was something else. */
async function aliasTaken(alias: string, show: (taken: AliasTaken) => void): Promise<boolean> {
  const answer = await api<{ available: boolean; suggestion?: string }>('GET', `/aliases/${encodeURIComponent(alias)}`);
  if (answer.available) return false;
  show({ alias, suggestion: answer.suggestion });
  return true;
}
