import type { ErrorCode } from '../../../src/platform/errors.js';
import { ApiError, type FailureCode } from './client.js';

/**
 * Every error value of the catalog in plain words. Typed by the catalog itself, so a new error value
 * does not build until it has its sentence here.
 */
const MESSAGES: Record<ErrorCode, string> = {
  invalid_request: 'Something in the form is not valid. Check the fields and try again.',
  api_key_invalid: 'You are signed out. Sign in again to continue.',
  link_allowance_required: 'The free links of this month are used up. Another link costs purchased credits.',
  credits_required: 'Your purchased credit balance is too small for this.',
  api_budget_exceeded: "This would go over the key's monthly budget.",
  api_scope_required: 'This is not allowed from here. Reload the page and try again.',
  not_found: 'It no longer exists: it may have been removed already. Reload the page to see what is there now.',
  link_changed: 'Someone changed this link since you opened it. Reload it to see the changes, then apply your edit again.',
  request_conflict: 'This conflicts with something that already happened (or is still in progress). Reload the page and check.',
  link_expired: 'This trial link has expired.',
  rate_limited: 'Too many requests.',
  links_unavailable: 'The service is busy or unavailable right now.',
};

const OTHER: Record<Exclude<FailureCode, ErrorCode>, string> = {
  network: 'The service could not be reached. Check your connection and try again.',
  unexpected: 'Something went wrong on our side. Try again in a moment.',
};

/** Overrides where a page knows better what an error value means for the person. */
export type MessageOverrides = Partial<Record<FailureCode, string>>;

/** The sentence shown for a failed request, with when to retry for 429 and 503. */
export function describeError(error: unknown, overrides: MessageOverrides = {}): string {
  if (!(error instanceof ApiError)) return OTHER.unexpected;
  const code = error.code;
  const base = overrides[code] ?? (code in MESSAGES ? MESSAGES[code as ErrorCode] : code in OTHER ? OTHER[code as keyof typeof OTHER] : OTHER.unexpected);
  if (code !== 'rate_limited' && code !== 'links_unavailable') return base;
  return `${base} ${retryIn(error.retryAfterSeconds)}`;
}

export function retryIn(seconds: number | undefined): string {
  if (seconds === undefined) return 'Try again in a little while.';
  if (seconds <= 1) return 'Try again in a second.';
  if (seconds < 90) return `Try again in ${seconds} seconds.`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return `Try again in ${minutes} minutes.`;
  const at = new Date(Date.now() + seconds * 1000);
  return `Try again after ${at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}.`;
}
