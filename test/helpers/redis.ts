import crypto from 'node:crypto';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Why Redis suites cannot run here, or undefined when they can. In CI they must run (as PostgreSQL). */
async function redisUnavailable(): Promise<string | undefined> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    const reason = `Redis unreachable at ${TEST_REDIS_URL}: ${(error as Error).message}`;
    if (process.env.CI === 'true') throw new Error(`${reason} (CI requires it)`);
    console.log(`skipping Redis suites: ${reason}`);
    return reason;
  } finally {
    redis.disconnect();
  }
}

export const redisSkip = await redisUnavailable();

/** An edge location name no other test run uses: counters are keyed by it, so runs never interfere. */
export const uniqueEdge = (label: string): string => `test-${label}-${crypto.randomBytes(6).toString('hex')}`;

/** Every key of the given edge locations, for assertions about what Redis holds. */
export async function keysOf(edges: string[]): Promise<string[]> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    const keys = await Promise.all(edges.map((edge) => redis.keys(`rl:${edge}:*`)));
    return keys.flat();
  } finally {
    redis.disconnect();
  }
}
