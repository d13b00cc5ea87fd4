import type { LinkCreated } from '../../api/types.js';

export interface AnalyticsSectionProps {
  link: LinkCreated;
  /** Present on a trial link's page: the token that may read the trial link's stats. */
  trialToken?: string;
}

/** The link's visits: counts over time and where they come from. */
export function AnalyticsSection(_props: AnalyticsSectionProps) {
  return (
    <section aria-labelledby="analytics-heading">
      <h2 id="analytics-heading">Analytics</h2>
      <p>Visits to this link.</p>
    </section>
  );
}
