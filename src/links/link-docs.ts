import { API_LIMITS } from '../platform/api-limits.js';
import { GENERAL, type Conditions } from '../platform/http/openapi-responses.js';

/** What the link operations answer and when, for the OpenAPI document (link-routes.ts, and the QR and stats routes). */

const { prices, trial, defaults } = API_LIMITS;

export const TARGET_RULE =
  '`target` must be an absolute `http` or `https` URL with its scheme written out, without user name or password or surrounding spaces, that does not lead to this service’s own `/s/` or `/q/` paths (also when its host name resolves to this service).';

export const LINK_NOT_FOUND = 'No link has this id, or it belongs to another account.';

export const LINK_EXPIRED = `The link is a trial link past its ${trial.lifetimeDays}-day lifetime.`;

export const CREATE_LINK_DESCRIPTION = [
  'Saves a link with both its short URL (`/s/`) and its tracked QR URL (`/q/`); they count as one link.',
  `**With a key** (\`links:write\`): the first links of each UTC month are free (${defaults.freeLinksPerMonth} by default, shared by the website and every key of the account). Past them a link costs ${prices.extraLinkCredits} purchased credits, spent only when \`maxCredits\` is ${prices.extraLinkCredits} and the key also has \`credits:spend\`.`,
  `**Without an \`Authorization\` header**: a trial link that expires after ${trial.lifetimeDays} days, with a \`trialToken\` in the response. Only \`target\`, \`title\` and \`maxCredits\` 0 are accepted; an \`alias\`, \`tags\` or \`maxCredits\` ${prices.extraLinkCredits} is 400. Each network may make ${trial.linksPerNetworkPerDay} trial links per UTC day, within a shared daily cap. An \`X-Service-Trial-Token\` sent here is ignored.`,
  `**Targets**: ${TARGET_RULE}`,
  '**Idempotency-Key** (required): the same key with the identical payload, from the same network on the same UTC day, returns the first result again (a trial link’s `trialToken` included). After an uncertain result, retry with the same key, never a new one.',
].join('\n\n');

const untilMidnight = '`Retry-After` then counts the seconds to midnight UTC.';

export const CREATE_LINK_ERRORS: Conditions = {
  invalid_request: `${GENERAL.invalid_request} Also: a missing or non-uuid \`Idempotency-Key\`; a \`target\` that breaks the target rule; an \`alias\` other than 1 to 40 of \`A\`–\`Z\`, \`a\`–\`z\`, \`0\`–\`9\`, \`_\`, \`-\`; without \`Authorization\`, an \`alias\`, \`tags\` or \`maxCredits\` other than 0.`,
  link_allowance_required: 'The free links of the UTC month are used up and `maxCredits` is 0.',
  credits_required: `An extra link is needed and the purchased balance, less active reservations, is under ${prices.extraLinkCredits} credits.`,
  api_budget_exceeded: 'An extra link is needed and its price would take the key past its monthly budget.',
  api_scope_required: 'The key lacks `links:write`, or an extra link is needed and the key lacks `credits:spend`.',
  request_conflict:
    'The `Idempotency-Key` was used with another payload, by another key, from another network or on another UTC day, or its first request is still in flight; or the `alias` is taken.',
  rate_limited: `${GENERAL.rate_limited} Without \`Authorization\`, also when the network has made its ${trial.linksPerNetworkPerDay} trial links this UTC day; ${untilMidnight}`,
  links_unavailable: `${GENERAL.links_unavailable} Without \`Authorization\`, also when the trial’s shared daily cap is reached; ${untilMidnight}`,
};
