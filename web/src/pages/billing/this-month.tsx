import type { ComponentChildren } from 'preact';
import type { Credits, Usage } from '../../api/types.js';
import { formatDate, formatNumber } from '../../ui/format.js';

/** This month's allowances and the purchased balance, as plain numbers with a bar for each allowance. */
export function ThisMonth({ usage, credits }: { usage: Usage; credits: Credits }) {
  const { links, visits, pricing } = usage;
  const freeLinksUsed = Math.max(0, pricing.freeLinksPerMonth - links.freeLeft);
  const freeVisitsUsed = Math.max(0, pricing.freeVisitsPerMonth - visits.freeLeft);
  return (
    <section aria-labelledby="month-heading">
      <h2 id="month-heading">This month ({usage.month}, UTC)</h2>
      <p>Free links and free recorded visits start again on {formatDate(usage.resetAt)}.</p>
      <dl class="figures">
        <Figure term="Free links">
          {formatNumber(freeLinksUsed)} of {formatNumber(pricing.freeLinksPerMonth)} used, <strong>{formatNumber(links.freeLeft)} left</strong>
          <Bar label="Free links used" value={freeLinksUsed} max={pricing.freeLinksPerMonth} />
        </Figure>
        <Figure term="Recorded visits">
          {formatNumber(visits.recordedThisMonth)} recorded this month, <strong>{formatNumber(visits.allowanceLeft)} left</strong>:{' '}
          {formatNumber(visits.freeLeft)} free and {formatNumber(visits.packsLeft)} from capacity packs
          <Bar label="Free recorded visits used" value={freeVisitsUsed} max={pricing.freeVisitsPerMonth} />
        </Figure>
        <Figure term="Purchased credits">
          <strong>{formatNumber(usage.purchasedBalance)} available</strong>
          {credits.reserved > 0 && <> ({formatNumber(credits.reserved)} more held for requests in progress)</>}
        </Figure>
        <Figure term="Links in all">{formatNumber(links.total)}</Figure>
      </dl>
      <p class="hint">
        Past the free links, a link costs {pricing.extraLinkCredits} credits. A capacity pack adds {formatNumber(pricing.capacityPackVisits)} recorded visits
        for {pricing.capacityPackCredits} credits.
      </p>
    </section>
  );
}

function Figure({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Bar({ label, value, max }: { label: string; value: number; max: number }) {
  return <progress class="bar" aria-label={label} value={Math.min(value, max)} max={Math.max(max, 1)} />;
}
