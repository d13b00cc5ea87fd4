import { API_LIMITS } from './api-limits.js';

const { trial, requests } = API_LIMITS;

/**
 * The error catalog: every error value the API answers with, its HTTP status, and when it is used
 * (Markdown, as docs/errors.md shows it: `npm run docs:errors` writes that page from here). The wire
 * form is exactly {"error": "<value>"} (API.md part 7, CONTRACT.md "Error values").
 */
export const ERROR_CATALOG = {
  invalid_request: {
    status: 400,
    when:
      'Any malformed or out-of-bounds input: body (schema, bounds, unknown properties, malformed JSON, empty JSON body, ' +
      `wrong content type, body over ${requests.maxBodyBytes / 1_048_576} MiB), query, path (e.g. a non-uuid id), headers ` +
      '(e.g. a missing or non-uuid `Idempotency-Key`), unparseable HTTP. Unsafe targets (non-http(s), credentials, ' +
      'pointing at our `/s/` or `/q/`). Trial creation with `alias`, `tags` or `maxCredits: ' +
      `${API_LIMITS.prices.extraLinkCredits}\`.`,
  },
  api_key_invalid: {
    status: 401,
    when:
      '`Authorization` present but not `Bearer <key>`, malformed, unknown or revoked key; a malformed or unknown trial ' +
      'token; a website session cookie that names no live session; no credentials on an endpoint that needs them; on ' +
      'the website, a failed sign-in or a wrong current password. Never falls back to trial access.',
  },
  link_allowance_required: { status: 402, when: 'Free links of the UTC month used up and `maxCredits` is 0.' },
  credits_required: { status: 402, when: 'The purchased balance (less active reservations) is below the price.' },
  api_budget_exceeded: { status: 402, when: "The key's monthly budget would be exceeded." },
  api_scope_required: {
    status: 403,
    when:
      'The key lacks the scope (including `credits:spend` for an extra link), or a trial token is used for another link; ' +
      'an API key where only a website session is taken; a state-changing request with a session that is not JSON or not same-origin (CSRF).',
  },
  not_found: {
    status: 404,
    when: 'Unknown route or method; a link that does not exist or belongs to another account. Redirects answer 404 with ' + 'an HTML page instead.',
  },
  link_changed: { status: 409, when: '`PATCH` with a stale `version`.' },
  request_conflict: {
    status: 409,
    when:
      'Idempotency-Key reused with another payload, from another key, network or day, or still in flight; alias taken; ' +
      'the link is not active for the operation (editing a suspended link, QR of a paused link).',
  },
  link_expired: {
    status: 410,
    when: `Read, stats or QR of a trial link past its ${trial.lifetimeDays} days. Redirects answer 410 with an HTML page.`,
  },
  rate_limited: {
    status: 429,
    when:
      "API rate limit per network or account, the redirect flood guard, or the trial's " +
      `${trial.linksPerNetworkPerDay} links per network per day. Always with \`Retry-After\` (seconds).`,
  },
  links_unavailable: {
    status: 503,
    when:
      "Storage unreachable or saturated, load shedding, the trial's shared daily cap, or any unexpected failure " + '(never a 500). Always with `Retry-After`.',
  },
} as const satisfies Record<string, { status: number; when: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** Each value's status alone, for the code that answers. */
export const ERROR_STATUS = Object.freeze(Object.fromEntries(Object.entries(ERROR_CATALOG).map(([code, entry]) => [code, entry.status]))) as {
  readonly [C in ErrorCode]: (typeof ERROR_CATALOG)[C]['status'];
};

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly retryAfterSeconds?: number,
  ) {
    super(code);
    this.status = ERROR_STATUS[code];
  }
}

/**
 * A broken rule with a sentence for people: the admin CLI prints `message`, while the API still
 * answers with `{"error": code}` alone.
 */
export class RuleError extends AppError {
  constructor(code: ErrorCode, message: string) {
    super(code);
    this.message = message;
  }
}
