/**
 * Counters of the request paths, plain integer fields incremented in place: the redirect path and the
 * API's refusals pay one addition, and /metrics (metrics.ts) reads them only when it is scraped.
 */

/** Answers of one redirect path (/s/ or /q/), by outcome. */
export class RedirectOutcomes {
  redirected = 0;
  notFound = 0;
  expired = 0;
  /** Refused by the redirect flood guard (429). */
  rateLimited = 0;
  /** Shed by the redirect guard under load (503). */
  shed = 0;
  /** Failed, mostly storage trouble on a cache miss (503). */
  failed = 0;
}

export class RedirectCounts {
  readonly s = new RedirectOutcomes();
  readonly q = new RedirectOutcomes();
}

/** API requests refused before any work: over a rate limit (429) or shed under load (503). */
export class RefusalCounts {
  rateLimited = 0;
  shed = 0;
}
