import { Redis } from 'ioredis';
import { decision, GcraTable, intervalMs, WINDOW_MS, type RateDecision } from './gcra.js';

/** Where API rate-limit counters live: this process, or Redis shared by one edge location. */
export interface RateLimiter {
  /** Whether the counters are shared with the location's other instances right now (metrics: shortlinks_rate_limits_shared). */
  readonly shared: boolean;
  check(key: string, limit: number, now: number): Promise<RateDecision>;
  close(): Promise<void>;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly table = new GcraTable();
  readonly shared = false;
  async check(key: string, limit: number, now: number): Promise<RateDecision> {
    return this.table.check(key, now, limit);
  }
  async close(): Promise<void> {}
}

/**
 * The same GCRA step as GcraTable.take, done inside Redis so that instances sharing the key cannot
 * interleave a read and a write. Returns {allowed, backlog in µs} (Lua numbers come back as integers). The TAT is stored with a TTL equal to
 * its backlog, after which it is in the past anyway. The clock is the caller's (passed in) so the
 * tests' fake clock works; instances of one location are assumed NTP-synced to well under a second.
 */
const GCRA_LUA = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local new_tat = tat + interval
if new_tat - now > window + 0.001 then return {0, math.ceil((tat - now) * 1000)} end
redis.call('SET', KEYS[1], new_tat, 'PX', math.ceil(new_tat - now))
return {1, math.floor((new_tat - now) * 1000)}
`;

type Logger = { warn(object: object, message: string): void; info(message: string): void };

/** A Redis command slower than this is treated as Redis being unavailable for this request. */
const COMMAND_TIMEOUT_MS = 200;

/**
 * Counts in Redis; when Redis cannot answer (down at boot, connection lost, too slow) it falls back
 * to this instance's memory, so limits still hold per instance rather than vanishing while Redis is
 * away (failing open would let anyone who can disturb Redis lift every limit). The fallback is logged
 * once per outage, not per request.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly fallback = new MemoryRateLimiter();
  private degraded = false;

  constructor(
    url: string,
    private readonly log: Logger,
  ) {
    this.redis = new Redis(url, {
      // Fail fast instead of queueing commands while disconnected: the fallback answers at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 1000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      // Named after the process, so an operator's CLIENT LIST tells the instances apart (and can end
      // one instance's connections with CLIENT KILL ID).
      connectionName: `shortlinks:${process.pid}`,
    });
    this.redis.defineCommand('gcra', { numberOfKeys: 1, lua: GCRA_LUA });
    // Without a listener ioredis prints every connection error; the fallback already logs the outage.
    this.redis.on('error', () => {});
  }

  /** No outage seen since the last check that Redis answered, and a connection ready for the next. */
  get shared(): boolean {
    return !this.degraded && this.ready();
  }

  private ready(): boolean {
    return this.redis.status === 'ready';
  }

  async check(key: string, limit: number, now: number): Promise<RateDecision> {
    try {
      const redis = this.redis as unknown as { gcra(key: string, ...args: number[]): Promise<[number, number]> };
      const [allowed, backlog] = await redis.gcra(key, Math.floor(now), intervalMs(limit), WINDOW_MS);
      if (this.degraded) {
        this.degraded = false;
        this.log.info('rate limits: Redis is back, counting there again');
      }
      return decision(allowed === 1, backlog / 1000, limit);
    } catch (error) {
      if (!this.degraded) {
        this.degraded = true;
        this.log.warn({ err: (error as Error).message }, 'rate limits: Redis unavailable, counting in this instance only');
      }
      return this.fallback.check(key, limit, now);
    }
  }

  /**
   * Settles when the first connection attempt does, or after a second: the service starts either way
   * (Redis down at boot means counting in memory until it comes up), but an instance starting next
   * to a healthy Redis should not count its first requests apart from its siblings.
   */
  async firstConnection(): Promise<void> {
    if (this.ready()) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done).off('error', done);
        resolve();
      };
      const timer = setTimeout(done, 1000);
      this.redis.once('ready', done).once('error', done);
    });
    if (!this.ready()) {
      // Said once here: the first check's failure, on the same outage, logs nothing more.
      this.degraded = true;
      this.log.warn({ redis: redisAddress(this.redis) }, 'rate limits: Redis unreachable at start, counting in this instance only until it answers');
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** host:port of the connection, never its password. */
const redisAddress = (redis: Redis): string => `${redis.options.host ?? 'localhost'}:${redis.options.port ?? 6379}`;

export async function createRateLimiter(redisUrl: string | undefined, log: Logger): Promise<RateLimiter> {
  if (!redisUrl) return new MemoryRateLimiter();
  const limiter = new RedisRateLimiter(redisUrl, log);
  await limiter.firstConnection();
  return limiter;
}
