import { PASSWORD_HASH_LOG_N } from '../accounts/passwords.js';
import { API_LIMITS } from './api-limits.js';
import { SAFE_BROWSING_DEFAULT_URL } from '../safety/safe-browsing.js';

/**
 * The one place that reads the environment: parsed once at boot, every bad variable named in one error,
 * the result frozen and passed around. Defaults are the values of API.md part 8 (api-limits.ts) and CONTRACT.md.
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly publicUrl: string;
  /** Further host names the service answers to (`*.name` for every subdomain): targets may not loop through them. */
  readonly publicHostnames: readonly string[];
  readonly trustProxy: boolean;
  readonly edgeLocation: string;
  readonly redisUrl: string | undefined;
  readonly logLevel: string;
  /** Bearer token that GET /metrics requires; unset: no /metrics at all (docs/decisions.md, "Health and metrics"). */
  readonly metricsToken: string | undefined;
  readonly limits: Limits;
  /** The website's session traffic, counted apart from the API's (docs/adr/0066-website-rate-limits.md). */
  readonly websiteRateLimits: { readonly perIp: number; readonly perAccount: number };
  /** How long a redirect lookup may be served from this instance's memory (see docs/decisions.md). */
  readonly redirectCacheTtlMs: number;
  readonly redirectCacheMaxEntries: number;
  /** After SIGTERM or SIGINT, how long readiness answers 503 while requests are still served (docs/adr/0082-shutdown-grace.md). */
  readonly shutdownGraceMs: number;
  /** Abuse protection (docs/decisions.md, "Rate limits, load shedding and abuse"). */
  readonly protection: Protection;
  /** Visit recording (docs/decisions.md, "Analytics"). */
  readonly analytics: AnalyticsConfig;
  /** People's accounts on the website (docs/adr/0064-website-sessions.md). */
  readonly accounts: AccountsConfig;
  /** Reports of links per minute per client network (docs/adr/0080). */
  readonly reportsPerMinute: number;
  /** Google Safe Browsing for targets (docs/adr/0080): unset without SAFE_BROWSING_API_KEY. */
  readonly safeBrowsing: { readonly apiKey: string; readonly baseUrl: string } | undefined;
}

export interface AccountsConfig {
  /** open: anyone may sign up (with a verified address); closed: accounts come from the CLI only. */
  readonly signup: 'open' | 'closed';
  /** Mail goes through this SMTP server; else to .eml files in mailDir; else to the log. */
  readonly smtpUrl: string | undefined;
  readonly mailDir: string | undefined;
  /** What the website says about getting purchased credits (checkout is the operator's). */
  readonly creditsHelp: string;
  /** Sign-in, sign-up and reset attempts per minute, per client network and per email address. */
  readonly authLimits: { readonly perNetwork: number; readonly perEmail: number };
  /** log2 of scrypt's N for new password hashes; below the default only to make test suites faster. */
  readonly passwordHashLogN: number;
}

export interface AnalyticsConfig {
  /** Lower-cased name of a trusted edge header carrying the visitor's country (e.g. cf-ipcountry); else GeoIP. */
  readonly countryHeader: string | undefined;
  readonly flushIntervalMs: number;
  readonly heartbeatIntervalMs: number;
  /** Visits held in memory while the database cannot be written; beyond, visits are dropped (a gap). */
  readonly bufferMaxVisits: number;
}

export interface Protection {
  /** Redirects per minute per network before the flood guard answers 429; far above any API limit. */
  readonly redirectFloodPerMinute: number;
  /** Load-shedding thresholds; 0 turns one off. The redirect path sheds last (higher threshold). */
  readonly shedEventLoopDelayMs: number;
  readonly shedRedirectEventLoopDelayMs: number;
  readonly shedDatabaseLatencyMs: number;
  /** Slowloris bounds: whole request, headers alone, and the largest header block accepted. */
  readonly requestTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly maxHeaderBytes: number;
  /** A socket with nothing moving for this long is closed while something is pending on it (app.ts, httpServer). */
  readonly idleSocketTimeoutMs: number;
}

export interface Limits {
  readonly rateLimitPerIp: number;
  readonly rateLimitPerAccount: number;
  readonly freeLinksPerMonth: number;
  readonly freeVisitsPerMonth: number;
  readonly trackingDailyLimit: number;
  readonly trackingDailyBotLimit: number;
  readonly trialDailyLimit: number;
}

type Env = Record<string, string | undefined>;

/** pino's levels: any other value would make the logger throw at boot, outside this one error. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {}

const { defaults } = API_LIMITS;

/**
 * lru-cache allocates its index arrays for every entry of `max` at start, about 28 bytes each: the
 * bound keeps that under 30 MB, where 100,000,000 would reserve 2.8 GB before the first redirect.
 */
export const REDIRECT_CACHE_MAX_ENTRIES_LIMIT = 1_000_000;

/** SHUTDOWN_GRACE_MS when unset (docs/adr/0082-shutdown-grace.md). */
export const SHUTDOWN_GRACE_MS_DEFAULT = 5000;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    // Decimal digits only: Number() would also take " 80", "0x50" or "1e3".
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const headerName = (name: string): string | undefined => {
    const raw = env[name]?.trim().toLowerCase();
    if (raw && !/^[a-z0-9-]+$/.test(raw)) problems.push(`${name} must be an HTTP header name (got "${raw}")`);
    return raw || undefined;
  };
  const port = int('PORT', 3000, 0, 65535);
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/shortlinks.db';
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    // The value is not echoed: a mistyped postgres URL still carries its password.
    problems.push('DATABASE_URL must be sqlite:<path> or postgres://…');
  }
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  if (!isHttpOrigin(publicUrl)) problems.push(`PUBLIC_URL must be an http(s) origin (got "${publicUrl}")`);
  const publicHostnames = (env.PUBLIC_HOSTNAMES ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  for (const name of publicHostnames) {
    if (!isHostName(name)) problems.push(`PUBLIC_HOSTNAMES must list host names, comma-separated (got "${name}")`);
  }
  const trustProxy = env.TRUST_PROXY ?? '';
  if (!['', '0', '1'].includes(trustProxy)) problems.push(`TRUST_PROXY must be 1 or 0 (got "${trustProxy}")`);
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) problems.push('REDIS_URL must be redis://… or rediss://…');
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  const metricsToken = env.METRICS_TOKEN || undefined;
  // Not echoed: it is a secret. Short tokens could be guessed, and it travels in a header.
  if (metricsToken !== undefined && !/^[\x21-\x7e]{16,}$/.test(metricsToken)) problems.push('METRICS_TOKEN must be at least 16 visible ASCII characters');
  const config: Config = {
    port,
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    publicUrl,
    publicHostnames: Object.freeze(publicHostnames),
    trustProxy: trustProxy === '1',
    edgeLocation: env.EDGE_LOCATION || 'local',
    redisUrl,
    logLevel,
    metricsToken,
    websiteRateLimits: Object.freeze({
      perIp: int('WEBSITE_RATE_LIMIT_PER_IP', 300, 1, 1_000_000),
      perAccount: int('WEBSITE_RATE_LIMIT_PER_ACCOUNT', 300, 1, 1_000_000),
    }),
    limits: Object.freeze({
      rateLimitPerIp: int('RATE_LIMIT_PER_IP', defaults.rateLimitPerIp, 1, 1_000_000),
      rateLimitPerAccount: int('RATE_LIMIT_PER_ACCOUNT', defaults.rateLimitPerAccount, 1, 1_000_000),
      freeLinksPerMonth: int('FREE_LINKS_PER_MONTH', defaults.freeLinksPerMonth, 0, 1_000_000_000),
      freeVisitsPerMonth: int('FREE_VISITS_PER_MONTH', defaults.freeVisitsPerMonth, 0, 1_000_000_000),
      trackingDailyLimit: int('TRACKING_DAILY_LIMIT', defaults.trackingDailyLimit, 0, 1_000_000_000),
      // Bot visits have a ceiling of their own, so that a flood of them never takes people's (docs/adr/0067).
      trackingDailyBotLimit: int('TRACKING_DAILY_BOT_LIMIT', defaults.trackingDailyBotLimit, 0, 1_000_000_000),
      trialDailyLimit: int('TRIAL_DAILY_LIMIT', defaults.trialDailyLimit, 0, 1_000_000_000),
    }),
    redirectCacheTtlMs: int('REDIRECT_CACHE_TTL_MS', 5000, 0, 3_600_000),
    redirectCacheMaxEntries: int('REDIRECT_CACHE_MAX_ENTRIES', 100_000, 1, REDIRECT_CACHE_MAX_ENTRIES_LIMIT),
    // Long enough for a load balancer probing every 2 s to see two failed probes; at most 10 minutes.
    shutdownGraceMs: int('SHUTDOWN_GRACE_MS', SHUTDOWN_GRACE_MS_DEFAULT, 0, 600_000),
    analytics: Object.freeze({
      countryHeader: headerName('COUNTRY_HEADER'),
      // At least once a second: stats are this fresh, and a crash loses at most this much unflushed
      // traffic (reported as a gap).
      flushIntervalMs: int('ANALYTICS_FLUSH_INTERVAL_MS', 1000, 10, 1000),
      heartbeatIntervalMs: int('ANALYTICS_HEARTBEAT_INTERVAL_MS', 5000, 10, 600_000),
      // About 40 bytes a visit until a flush counts it (visits.ts): the default holds about 40 s of
      // the redirect benchmark's load, about 80 MB.
      bufferMaxVisits: int('ANALYTICS_BUFFER_MAX_VISITS', 2_000_000, 1, 100_000_000),
    }),
    protection: Object.freeze({
      redirectFloodPerMinute: int('REDIRECT_FLOOD_PER_MINUTE', 3000, 1, 100_000_000),
      shedEventLoopDelayMs: int('SHED_EVENT_LOOP_DELAY_MS', 300, 0, 600_000),
      shedRedirectEventLoopDelayMs: int('SHED_REDIRECT_EVENT_LOOP_DELAY_MS', 1000, 0, 600_000),
      shedDatabaseLatencyMs: int('SHED_DATABASE_LATENCY_MS', 1000, 0, 600_000),
      requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
      headersTimeoutMs: int('HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      idleSocketTimeoutMs: int('IDLE_SOCKET_TIMEOUT_MS', 60_000, 100, 3_600_000),
      maxHeaderBytes: int('MAX_HEADER_BYTES', 16_384, 1024, 1_048_576),
    }),
    accounts: accountsConfig(env, int, problems),
    reportsPerMinute: int('REPORT_RATE_LIMIT_PER_IP', 3, 1, 1_000_000),
    safeBrowsing: safeBrowsingConfig(env, problems),
  };
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return Object.freeze(config);
}

function safeBrowsingConfig(env: Env, problems: string[]): Config['safeBrowsing'] {
  const baseUrl = env.SAFE_BROWSING_URL || SAFE_BROWSING_DEFAULT_URL;
  if (!isHttpUrl(baseUrl)) problems.push(`SAFE_BROWSING_URL must be an http(s) URL (got "${baseUrl}")`);
  const apiKey = env.SAFE_BROWSING_API_KEY?.trim();
  return apiKey ? Object.freeze({ apiKey, baseUrl }) : undefined;
}

const DEFAULT_CREDITS_HELP = 'Purchased credits are granted by the operator of this service: contact them to buy some.';

function accountsConfig(env: Env, int: (name: string, fallback: number, min: number, max: number) => number, problems: string[]): AccountsConfig {
  const signup = env.SIGNUP || 'open';
  if (signup !== 'open' && signup !== 'closed') problems.push(`SIGNUP must be open or closed (got "${signup}")`);
  const smtpUrl = env.SMTP_URL || undefined;
  // Not echoed: it usually carries the mail account's password.
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^/]/.test(smtpUrl)) problems.push('SMTP_URL must be smtp://… or smtps://…');
  return Object.freeze({
    signup: signup === 'closed' ? 'closed' : 'open',
    smtpUrl,
    mailDir: env.MAIL_DIR || undefined,
    creditsHelp: env.CREDITS_HELP?.trim() || DEFAULT_CREDITS_HELP,
    authLimits: Object.freeze({
      perNetwork: int('AUTH_RATE_LIMIT_PER_IP', 10, 1, 1_000_000),
      perEmail: int('AUTH_RATE_LIMIT_PER_EMAIL', 5, 1, 1_000_000),
    }),
    passwordHashLogN: int('PASSWORD_HASH_LOG_N', PASSWORD_HASH_LOG_N.default, PASSWORD_HASH_LOG_N.min, PASSWORD_HASH_LOG_N.max),
  });
}

/** A host name or address, optionally `*.` for its subdomains; no scheme, port or path. */
function isHostName(value: string): boolean {
  const name = value.replace(/^\*\./, '');
  try {
    return /^[^/:@?#*]+$|^\[[0-9a-f:.]+\]$/i.test(name) && new URL(`http://${name}/`).hostname !== '';
  } catch {
    return false;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function isHttpOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && !url.search;
  } catch {
    return false;
  }
}
