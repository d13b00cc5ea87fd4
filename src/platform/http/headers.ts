/** Header names and values that several parts of the service state: each is said here once. */

/** Carries a trial link's token (API.md part 5); Node lower-cases incoming names, so lookups use `.toLowerCase()`. */
export const TRIAL_TOKEN_HEADER = 'X-Service-Trial-Token';

/**
 * Cache-Control of every redirect answer and short-link page: no cache in between, so each visit
 * reaches us and is counted.
 */
export const REDIRECT_CACHE_CONTROL = 'private, no-store';
