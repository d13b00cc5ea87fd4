/**
 * The error catalog: every error value the API answers with, its HTTP status, and when it is used.
 * The wire form is exactly {"error": "<value>"} (API.md part 7, CONTRACT.md "Error values").
 */
export const ERROR_STATUS = {
  /** Any malformed or out-of-bounds input: body, query, path, headers, content type, size. */
  invalid_request: 400,
  /** Missing, malformed, unknown or revoked credentials (key or trial token). */
  api_key_invalid: 401,
  /** Free links of the month used up and maxCredits is 0. */
  link_allowance_required: 402,
  /** The purchased balance (less active reservations) is too small. */
  credits_required: 402,
  /** The key's monthly budget would be exceeded. */
  api_budget_exceeded: 402,
  /** The key or trial token does not authorize this. */
  api_scope_required: 403,
  /** Unknown route, or a resource that does not exist or belongs to someone else. */
  not_found: 404,
  /** Stale version on PATCH. */
  link_changed: 409,
  /** Idempotency-Key reused with another payload or still in flight; alias taken; link not active. */
  request_conflict: 409,
  /** Trial link past its seven-day lifetime. */
  link_expired: 410,
  /** Rate limit or trial allowance exhausted (with Retry-After). */
  rate_limited: 429,
  /** Storage unreachable, overloaded, or shared capacity exhausted (with Retry-After). */
  links_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

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
