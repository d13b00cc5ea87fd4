import type { BillingService } from '../../billing/billing-service.js';
import type { LinkService } from '../../links/link-service.js';
import type { LinkRecord } from '../../links/ports.js';
import type { LinkResponse } from '../../links/link-schemas.js';

/** What the routes are handed: the domain services, and the mapper bound to this deployment's URL. */
export interface Services {
  links: LinkService;
  billing: BillingService;
  render: (link: LinkRecord) => LinkResponse;
}
