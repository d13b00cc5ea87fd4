import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../platform/errors.js';
import { networkHash } from '../platform/network.js';
import type { Clock } from '../platform/time.js';
import type { RateLimiter } from '../limits/redis-rate-limiter.js';

/** `code`: two-factor codes, at sign-in and when turning two-factor sign-in off. */
export type AuthFlow = 'signin' | 'signup' | 'reset' | 'code';

export interface AuthLimitSettings {
  /** Attempts per minute of one flow from one network, and for one email address. */
  perNetwork: number;
  perEmail: number;
}

/**
 * Sign-in, sign-up and reset attempts per flow, per client network and per email address, counted by
 * the same GCRA limiter (in memory or Redis) as the API's rate limits. The email is counted whether or
 * not an account has it, so a refusal says nothing about who has an account. Networks and emails are
 * keyed by their HMAC: the counters never hold an address.
 */
export class AuthLimits {
  constructor(private readonly deps: { limiter: RateLimiter; settings: AuthLimitSettings; edgeLocation: string; secret: string; now: Clock }) {}

  async check(flow: AuthFlow, network: string, email: string): Promise<void> {
    const { limiter, settings, edgeLocation, secret } = this.deps;
    const now = this.deps.now();
    const prefix = `rl:${edgeLocation}:auth:${flow}`;
    const byNetwork = await limiter.check(`${prefix}:net:${networkHash(secret, network)}`, settings.perNetwork, now);
    if (!byNetwork.allowed) throw new AppError('rate_limited', Math.ceil(byNetwork.retryAfterMs / 1000));
    const byEmail = await limiter.check(`${prefix}:email:${networkHash(secret, `email:${email}`)}`, settings.perEmail, now);
    if (!byEmail.allowed) throw new AppError('rate_limited', Math.ceil(byEmail.retryAfterMs / 1000));
  }
}

/**
 * Runs `work` and answers no sooner than `minimumMs` after it began, so that the few milliseconds a
 * database write takes for an existing account (or not) cannot be told apart from the outside. Wall
 * time, not the service clock: this is about what a caller can measure.
 */
export async function evenly<T>(minimumMs: number, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    const left = minimumMs - (performance.now() - started);
    if (left > 0) await sleep(left);
  }
}
