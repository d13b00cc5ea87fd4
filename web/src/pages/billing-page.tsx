import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Credits, KeySummary, Pack, SiteInfo, Usage } from '../api/types.js';
import { Busy, ErrorMessage } from '../ui/form.js';
import { useResource } from '../ui/use-resource.js';
import { BuyPack } from './billing/buy-pack.js';
import { CreditHistory, KeyBudgets } from './billing/credit-history.js';
import { Packs } from './billing/packs.js';
import { ThisMonth } from './billing/this-month.js';

const loadAll = async () => {
  const [usage, credits, packs, keys, site] = await Promise.all([
    api<Usage>('GET', '/account/usage'),
    api<Credits>('GET', '/account/credits'),
    api<{ packs: Pack[] }>('GET', '/account/packs'),
    api<{ keys: KeySummary[] }>('GET', '/keys'),
    api<SiteInfo>('GET', '/site'),
  ]);
  return { usage, credits, packs: packs.packs, keys: keys.keys, site };
};

export default function BillingPage() {
  const all = useResource(loadAll);
  const data = all.data;
  // Each refund ends the "Capacity pack bought" notice: it no longer describes what is on the page.
  const [refunds, setRefunds] = useState(0);
  return (
    <section>
      <h1 tabIndex={-1}>Usage and billing</h1>
      <Busy busy={all.loading && data === undefined} text="Loading your usage…" />
      <ErrorMessage error={all.error} />
      {data && (
        <>
          <ThisMonth usage={data.usage} credits={data.credits} />
          <section aria-labelledby="packs-heading">
            <h2 id="packs-heading">Capacity packs</h2>
            <BuyPack usage={data.usage} onBought={all.reload} refunds={refunds} />
            <Packs
              packs={data.packs}
              onRefunded={async () => {
                setRefunds((n) => n + 1);
                await all.reload();
              }}
            />
          </section>
          <section aria-labelledby="budgets-heading">
            <h2 id="budgets-heading">Key budgets</h2>
            <KeyBudgets keys={data.keys} />
          </section>
          <section aria-labelledby="help-heading">
            <h2 id="help-heading">Getting credits</h2>
            <p class="operator-text">{data.site.creditsHelp}</p>
          </section>
          <section aria-labelledby="history-heading">
            <h2 id="history-heading">Credit history</h2>
            <CreditHistory history={data.credits.history} />
          </section>
        </>
      )}
    </section>
  );
}
