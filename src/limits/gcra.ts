/**
 * GCRA (generic cell rate algorithm): the sliding-window limiter that keeps one number per key, the
 * "theoretical arrival time" (TAT). `limit` requests per minute may arrive in one burst; after that,
 * capacity comes back continuously (one request every 60 s / limit), so there is no window edge at
 * which a client can fire two bursts back to back, as a fixed window would allow.
 */
export const WINDOW_MS = 60_000;

/** Float slack so that `limit` intervals of 60 000 / limit ms still fit the window exactly. */
const EPSILON_MS = 0.001;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests that could still be made right now. */
  remaining: number;
  /** Milliseconds until the full quota is available again. */
  resetMs: number;
  /** Milliseconds until the next request is allowed (0 when this one was). */
  retryAfterMs: number;
}

export const intervalMs = (limit: number): number => WINDOW_MS / limit;

/**
 * The decision from the outcome of one GCRA step: `backlogMs` is TAT − now after the step (when
 * allowed) or before it (when refused). Shared by the in-memory table and the Redis script.
 */
export function decision(allowed: boolean, backlogMs: number, limit: number): RateDecision {
  const interval = intervalMs(limit);
  const backlog = Math.max(0, backlogMs);
  if (allowed) {
    const remaining = Math.max(0, limit - Math.ceil((backlog - EPSILON_MS) / interval));
    return { allowed, limit, remaining, resetMs: backlog, retryAfterMs: 0 };
  }
  return { allowed, limit, remaining: 0, resetMs: backlog, retryAfterMs: Math.max(1, backlog + interval - WINDOW_MS) };
}

/**
 * GCRA state in process memory, bounded without timers or per-key expiry: keys live in two
 * generations that rotate once a window. A key untouched for a whole window has its TAT in the past,
 * which is the same as having no entry, so dropping the older generation loses nothing. If more than
 * `maxKeys` keys arrive within one window (a scan from a botnet), the table rotates early and some
 * keys start afresh: memory stays bounded at the cost of letting a little more through.
 */
export class GcraTable {
  /**
   * Each key's TAT in a box updated in place: Map.set of a new number allocated a heap number and
   * rehashed the key on every request of the redirect path.
   */
  private current = new Map<string, { at: number }>();
  private previous = new Map<string, { at: number }>();
  private rotatedAt = -Infinity;

  constructor(private readonly maxKeys = 500_000) {}

  /**
   * Counts one request for `key` when it fits. Returns a number rather than an object because the
   * redirect flood guard calls this on every visit: > 0 is the backlog after an allowed request
   * (ms), < 0 is minus the backlog of a refused one.
   */
  take(key: string, now: number, limit: number): number {
    if (now - this.rotatedAt >= WINDOW_MS || this.current.size >= this.maxKeys) this.rotate(now);
    let stored = this.current.get(key);
    const moving = stored === undefined;
    // A key of the older generation moves to the current one when it takes a request.
    if (stored === undefined) stored = this.previous.get(key) ?? { at: now };
    const tat = stored.at > now ? stored.at : now;
    const next = tat + WINDOW_MS / limit;
    if (next - now > WINDOW_MS + EPSILON_MS) return -(tat - now) || -EPSILON_MS;
    stored.at = next;
    if (moving) this.current.set(key, stored);
    return next - now;
  }

  /** One GCRA step as a full decision, for the API limiter (headers need every field). */
  check(key: string, now: number, limit: number): RateDecision {
    const backlog = this.take(key, now, limit);
    return decision(backlog > 0, Math.abs(backlog), limit);
  }

  private rotate(now: number): void {
    this.previous = this.current;
    this.current = new Map();
    this.rotatedAt = now;
  }
}
