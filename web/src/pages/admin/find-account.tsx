import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { formatDateTime, formatNumber } from '../../ui/format.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';
import { budgetText, keyHint } from '../keys/key-list.js';
import type { FoundAccount } from './admin-types.js';

/** "Find account" by email: its links, keys and credits; and "Grant credits". */
export function FindAccount({ onChanged }: { onChanged: () => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [found, setFound] = useState<FoundAccount>();
  const [credits, setCredits] = useState('');
  const [granted, setGranted] = useState('');
  const load = (address: string) => api<FoundAccount>('GET', `/admin/accounts?email=${encodeURIComponent(address)}`);
  const find = useAction(async () => {
    setGranted('');
    setFound(await load(email.trim()));
  });
  const grant = useAction(async () => {
    const amount = Number(credits);
    const answer = await api<{ purchasedBalance: number }>('POST', `/admin/accounts/${found!.account.id}/credits`, { credits: amount });
    setFound(await load(found!.account.email));
    setCredits('');
    setGranted(`${formatNumber(amount)} credits granted. The balance is ${formatNumber(answer.purchasedBalance)}.`);
    await onChanged();
  });
  const account = found?.account;
  return (
    <section aria-labelledby="find-account-heading">
      <h2 id="find-account-heading">Find an account</h2>
      <form onSubmit={submitted(() => void find.run())}>
        <Field label="Find account" type="email" required value={email} onValue={setEmail} hint="The account’s email address." />
        <ErrorMessage error={find.error} overrides={{ not_found: 'No account has that email address.' }} />
        <Submit label="Find" busy={find.busy} kind="secondary" busyText="Looking…" />
      </form>
      {account && found && (
        <div class="result">
          <dl class="facts">
            <dt>Email</dt>
            <dd>{account.email}</dd>
            <dt>Verified</dt>
            <dd>{account.verified ? 'Yes' : 'Not yet'}</dd>
            <dt>Operator</dt>
            <dd>{account.operator ? 'Yes' : 'No'}</dd>
            <dt>Since</dt>
            <dd>{formatDateTime(account.createdAt)}</dd>
            <dt>Purchased credits</dt>
            <dd>
              {formatNumber(account.purchasedBalance)}
              {account.reservedCredits > 0 && ` (${formatNumber(account.reservedCredits)} held by requests in flight)`}
            </dd>
          </dl>
          <form onSubmit={submitted(() => void grant.run())}>
            <Field label="Credits" inputMode="numeric" pattern="[0-9]+" required value={credits} onValue={setCredits} />
            <ErrorMessage error={grant.error} overrides={{ invalid_request: 'Enter a whole number of credits, 1 or more.' }} />
            <div role="status">{granted && <Notice kind="success">{granted}</Notice>}</div>
            <Submit label="Grant credits" busy={grant.busy} busyText="Granting…" />
          </form>
          <h3>
            Links ({formatNumber(found.links.length)}
            {found.links.length === 50 ? ', the newest 50' : ''})
          </h3>
          {found.links.length === 0 ? (
            <p>No links.</p>
          ) : (
            <ul class="plain">
              {found.links.map((link) => (
                <li key={link.id} class="wrap-anywhere">
                  {link.title || link.slug}: {link.shortUrl} → {link.target} ({link.status})
                </li>
              ))}
            </ul>
          )}
          <h3>API keys</h3>
          {found.keys.length === 0 ? (
            <p>No keys.</p>
          ) : (
            <ul class="plain">
              {found.keys.map((key) => (
                <li key={key.id}>
                  {key.name || 'Unnamed key'} ({keyHint(key)}): {key.scopes.join(', ')}; budget {budgetText(key.budget)}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
