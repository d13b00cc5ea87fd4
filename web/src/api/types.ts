import type { Static } from '@sinclair/typebox';
import type { Usage as UsageSchema } from '../../../src/billing/billing-schemas.js';
import type { LinkCreated as LinkCreatedSchema } from '../../../src/links/link-schemas.js';
import type { Scope } from '../../../src/platform/auth/principal.js';

/** The public API's shapes, from the same TypeBox schemas the server validates with. */
export type Usage = Static<typeof UsageSchema>;
export type LinkCreated = Static<typeof LinkCreatedSchema>;

/** The website-only endpoints (docs: the OpenAPI document, tag "website"). */
export interface Account {
  id: string;
  email: string;
}

export interface SiteInfo {
  signup: 'open' | 'closed';
  creditsHelp: string;
}

export { SCOPES, type Scope } from '../../../src/platform/auth/principal.js';

export interface KeySummary {
  id: string;
  name: string | null;
  /** Null on keys made before prefixes were kept. */
  prefix: string | null;
  last4: string | null;
  scopes: Scope[];
  budget: number | null;
  spentThisMonth: number;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface CreatedKey {
  id: string;
  key: string;
  name: string | null;
  prefix: string;
  last4: string;
  scopes: Scope[];
  budget: number | null;
  createdAt: number;
}

export interface Pack {
  id: string;
  status: 'active' | 'refunded';
  credits: number;
  visits: number;
  visitsUsed: number;
  createdAt: number;
  refundable: boolean;
}

export interface CreditEntry {
  at: number;
  credits: number;
  reason: 'grant' | 'link' | 'pack' | 'refund';
}

export interface Credits {
  purchasedBalance: number;
  reserved: number;
  history: CreditEntry[];
}
