import { ApiError } from '../../api/client.js';

const MOST_TRIES = 20;

/**
 * Calls `request` again while the API refuses it for the rate limit (429), after waiting what
 * Retry-After says: an import of hundreds of rows outruns the website's limit of requests a minute,
 * and waiting is all a person could do. `onWait` is told how long (then undefined when it is over).
 * A refused request did nothing, so sending it again is safe; every other failure is thrown.
 */
export async function patiently<T>(request: () => Promise<T>, onWait: (seconds: number | undefined) => void): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 429) || tries >= MOST_TRIES) throw error;
      const seconds = Math.max(1, error.retryAfterSeconds ?? 1);
      onWait(seconds);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      onWait(undefined);
    }
  }
}
