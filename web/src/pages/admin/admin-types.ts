import type { Static } from '@sinclair/typebox';
import type {
  AuditList,
  FoundAccount as FoundAccountSchema,
  FoundLink as FoundLinkSchema,
  Report as ReportSchema,
} from '../../../../src/safety/safety-schemas.js';
import type { Link } from '../../api/types.js';

/** The console's answers, from the schemas the server answers with; their links are the API's Link. */
export type Report = Omit<Static<typeof ReportSchema>, 'link'> & { link: Link | null };
export type FoundLink = Omit<Static<typeof FoundLinkSchema>, 'link'> & { link: Link };
export type FoundAccount = Omit<Static<typeof FoundAccountSchema>, 'links'> & { links: Link[] };
export type AuditEntry = Static<typeof AuditList>['entries'][number];
