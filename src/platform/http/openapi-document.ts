import { API_LIMITS } from '../api-limits.js';
import { KEY_PREFIX, TRIAL_TOKEN_PREFIX } from '../auth/secrets.js';
import { MIN_BACKGROUND_LUMINANCE } from '../../qr/colors.js';

const { links, trial, qr } = API_LIMITS;

/** The operation groups of the document; a route names one with `tags(…)`, so none goes undeclared (a test checks every operation's). */
const TAG_DESCRIPTIONS = {
  links: `Short links: create one (with a key, or without one as a ${trial.lifetimeDays}-day trial link), list, read and edit them.`,
  qr: 'The tracked QR code of a link (its /q/ URL), exported as a styled SVG.',
  analytics: 'Private analytics of a link: recorded redirects per UTC day and dimension, and the gaps in recording.',
  account: 'The account’s allowances, balance, key budget and prices; quotes; capacity packs bought with purchased credits.',
  trial: 'The no-key trial: how many trial links the caller’s network may still create today.',
  website:
    'Endpoints only the website uses (`x-website-only`), with its session: sign-up and sign-in, keys, packs and the credit ledger. Programs and generated clients leave them out (docs/adr/0065-website-only-endpoints.md).',
} as const;

export type Tag = keyof typeof TAG_DESCRIPTIONS;

/** An operation's tags, checked against the declared ones. */
export const tags = (...names: Tag[]): Tag[] => names;

export const OPENAPI_TAGS = Object.entries(TAG_DESCRIPTIONS).map(([name, description]) => ({ name, description }));

const STRICTER = [
  `A \`target\` (creation and edit) is an absolute \`http\` or \`https\` URL with its scheme written out, without user name or password, without leading or trailing spaces, at most ${links.targetMaxLength} characters on edit too, and not leading to this service’s own \`/s/\` or \`/q/\` paths (also when its host name resolves to this service).`,
  `An \`alias\` is 1 to ${links.aliasMaxLength} of \`A\`–\`Z\`, \`a\`–\`z\`, \`0\`–\`9\`, \`_\` and \`-\`.`,
  '`title`, `tags` and `search` may not contain U+0000; `version` is at most 2147483647.',
  'Integers in a query string or a path are written in decimal digits (no `1e3`, `0x10` or spaces).',
  `A JSON body is UTF-8 text of at most ${API_LIMITS.requests.maxBodyBytes / 1_048_576} MiB whose strings are well-formed Unicode, without \`__proto__\` keys or \`constructor\` objects holding \`prototype\`.`,
  'Host, Authorization, X-Service-Trial-Token, Idempotency-Key and Content-Type appear at most once in a request.',
  `A QR code’s background is light when its WCAG relative luminance is at least ${MIN_BACKGROUND_LUMINANCE}, and the foreground must be darker (and the contrast at least ${qr.minContrast}).`,
];

export const OPENAPI_INFO = {
  title: 'Short Links, Tracked QR and Analytics API',
  version: '1.1.0',
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  description: [
    'Hosted short links, tracked QR codes exported as SVG, private analytics, quotes and extra recording capacity. A beta with shared capacity and no availability guarantee.',
    `**Authentication.** An account key as a bearer token (\`Authorization: Bearer ${KEY_PREFIX}…\`), scoped: each operation names the scope it needs. A supplied \`Authorization\` header that is not a valid, unrevoked key is 401 and never falls back to the trial. Without it, \`POST /links\` makes a ${trial.lifetimeDays}-day trial link whose \`trialToken\` (\`${TRIAL_TOKEN_PREFIX}…\`), sent as \`X-Service-Trial-Token\`, reads that link, its QR code and its stats.`,
    '**Errors.** Every error body is exactly `{"error": value}`; the `Error` schema lists every value, and each operation lists per status the values it answers and when (docs/errors.md is the catalog). 429 and 503 carry `Retry-After`.',
    '**Rate limits.** Requests are counted per minute per client network and, for a key, per account, at each edge location. Every response the limiter counted carries `RateLimit-Policy` and `RateLimit`.',
    `**Where this service is stricter than API.md.**\n\n${STRICTER.map((rule) => `- ${rule}`).join('\n')}`,
  ].join('\n\n'),
};

export const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http' as const,
    scheme: 'bearer',
    bearerFormat: `${KEY_PREFIX}…`,
    description:
      'An account key. Scopes: `links:read`, `links:write`, `analytics:read`, `qr:read`, `credits:spend`; each operation lists the one it needs. An extra link beyond the monthly allowance also needs `credits:spend`.',
  },
  trialToken: {
    type: 'apiKey' as const,
    in: 'header',
    name: 'X-Service-Trial-Token',
    description:
      'The `trialToken` of a trial link, returned once by its creation (and its replay): reads that link, its QR code and its stats until the link expires.',
  },
  session: {
    type: 'apiKey' as const,
    in: 'cookie',
    name: 'sl_session',
    description:
      'The website’s session cookie, set by sign-in and verification (HttpOnly, SameSite=Lax): the signed-in owner of a verified account, with every scope and no key budget. A state-changing request made with it must be JSON and same-origin (docs/adr/0064-website-sessions.md).',
  },
};

/** Headers the service sends, referenced from every response that carries them. */
export const RESPONSE_HEADERS = {
  RateLimit: {
    description:
      'What is left of each policy that counted the request (IETF draft-ietf-httpapi-ratelimit-headers): `r` requests remain, and the whole quota is back in `t` seconds. `"network"` always; `"account"` too for a key.',
    schema: { type: 'string' as const, pattern: '^"[a-z]+";r=\\d+;t=\\d+(, "[a-z]+";r=\\d+;t=\\d+)*$', examples: ['"network";r=19;t=3, "account";r=29;t=2'] },
  },
  'RateLimit-Policy': {
    description: 'The policies that counted the request: `q` requests per window of `w` seconds, one item per policy, in the order of `RateLimit`.',
    schema: { type: 'string' as const, pattern: '^"[a-z]+";q=\\d+;w=\\d+(, "[a-z]+";q=\\d+;w=\\d+)*$', examples: ['"network";q=20;w=60, "account";q=30;w=60'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer' as const, minimum: 0 },
  },
};
