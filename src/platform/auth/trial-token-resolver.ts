import { AppError } from '../errors.js';
import type { PrincipalResolver } from './route-access.js';
import { hashSecret, isTrialTokenShaped } from './secrets.js';
import { TRIAL_TOKEN_HEADER } from '../http/headers.js';

const TRIAL_HEADER = TRIAL_TOKEN_HEADER.toLowerCase();

export interface TrialLinkLookup {
  byTrialTokenHash(hash: string): Promise<{ id: string } | undefined>;
}

/**
 * `X-Service-Trial-Token: shl_trial_…`, the token of one trial link. Where anyone may call without
 * credentials (POST /links makes a trial link) it is ignored. Elsewhere it is judged: a bad token is
 * 401, and a good one on a route that takes no trial token is then refused with 403 by the route check.
 */
export function trialTokenResolver(links: TrialLinkLookup): PrincipalResolver {
  return {
    kind: 'trial',
    security: (rule) => (rule.trialToken && !rule.sessionOnly ? { trialToken: [] } : undefined),
    async resolve(request, rule) {
      const token = request.headers[TRIAL_HEADER];
      if (token === undefined || (rule.anonymous && !rule.trialToken)) return undefined;
      if (typeof token !== 'string' || !isTrialTokenShaped(token)) throw new AppError('api_key_invalid');
      const link = await links.byTrialTokenHash(hashSecret(token));
      if (!link) throw new AppError('api_key_invalid');
      return { kind: 'trial', linkId: link.id };
    },
  };
}
