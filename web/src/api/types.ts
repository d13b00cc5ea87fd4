import type { Static } from '@sinclair/typebox';
import type { Usage as UsageSchema } from '../../../src/billing/billing-schemas.js';
import type { LinkCreated as LinkCreatedSchema, LinkList as LinkListSchema, LinkResponse } from '../../../src/links/link-schemas.js';
import type { QuoteResult } from '../../../src/billing/billing-schemas.js';
import type { SignedInAccount, Site } from '../../../src/accounts/auth-schemas.js';
import type { CreditHistory, KeyCreated, KeySummary as KeySummarySchema, PackSummary } from '../../../src/accounts/website-schemas.js';

/**
 * The shapes the pages read, from the same TypeBox schemas the server validates and documents with:
 * a change on the server that a page does not follow fails `npm run typecheck`.
 */
export type Usage = Static<typeof UsageSchema>;
export type LinkCreated = Static<typeof LinkCreatedSchema>;
export type Link = LinkResponse;
export type LinkPage = Omit<Static<typeof LinkListSchema>, 'links'> & { links: Link[] };
export type Quote = Static<typeof QuoteResult>;
export type Account = Static<typeof SignedInAccount>['account'];
export type SiteInfo = Static<typeof Site>;
export type KeySummary = Static<typeof KeySummarySchema>;
export type CreatedKey = Static<typeof KeyCreated>;
export type Pack = Static<typeof PackSummary>;
export type Credits = Static<typeof CreditHistory>;
export type CreditEntry = Credits['history'][number];

export { SCOPES, type Scope } from '../../../src/platform/auth/principal.js';
