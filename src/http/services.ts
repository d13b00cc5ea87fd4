import type { BillingService } from '../domain/billing-service.js';
import type { LinkService } from '../domain/link-service.js';
import type { LinkRecord } from '../domain/ports.js';
import type { RedirectResolver } from '../domain/redirects.js';
import type { LinkResponse } from './schemas/links.js';

/** What the routes are handed: the domain services, and the mapper bound to this deployment's URL. */
export interface Services {
  links: LinkService;
  billing: BillingService;
  redirects: RedirectResolver;
  render: (link: LinkRecord) => LinkResponse;
}
