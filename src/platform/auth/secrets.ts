import crypto from 'node:crypto';

/**
 * Credentials: API keys and trial tokens are 256-bit random values shown once and stored only as their
 * SHA-256 (a slow hash buys nothing for values this random). Lookups go by hash; the final comparison
 * is constant-time. Nothing here ever logs a secret.
 */
export const KEY_PREFIX = 'shl_live_';
export const TRIAL_TOKEN_PREFIX = 'shl_trial_';
const SECRET_BODY = /^[A-Za-z0-9_-]{43}$/;

export const newApiKey = (): string => KEY_PREFIX + crypto.randomBytes(32).toString('base64url');
export const newTrialToken = (): string => TRIAL_TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');

export const isApiKeyShaped = (value: string): boolean => value.startsWith(KEY_PREFIX) && SECRET_BODY.test(value.slice(KEY_PREFIX.length));
export const isTrialTokenShaped = (value: string): boolean => value.startsWith(TRIAL_TOKEN_PREFIX) && SECRET_BODY.test(value.slice(TRIAL_TOKEN_PREFIX.length));

export const hashSecret = (secret: string): string => crypto.createHash('sha256').update(secret).digest('hex');

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

/**
 * A trial token must be returned again on an idempotent replay, but must not sit in the database in
 * the clear. It is sealed with AES-256-GCM under a key derived from the Idempotency-Key and the
 * caller's network, which only the original caller holds; the database alone cannot open it.
 */
function sealKey(idempotencyKey: string, network: string): Buffer {
  return crypto.createHash('sha256').update(`trial-seal\0${idempotencyKey}\0${network}`).digest();
}

export function seal(secret: string, idempotencyKey: string, network: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', sealKey(idempotencyKey, network), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

export function unseal(sealed: string, idempotencyKey: string, network: string): string {
  const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  const decipher = crypto.createDecipheriv('aes-256-gcm', sealKey(idempotencyKey, network), iv!);
  decipher.setAuthTag(tag!);
  return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
}

/** Stable fingerprint of a request: same caller, same operation, same payload (key order ignored). */
export function fingerprint(parts: unknown): string {
  return crypto.createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}
