import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

/**
 * log2 of scrypt's N: OWASP's 17 by default (with r = 8, p = 1, a 64-byte key and a 16-byte salt below),
 * set by PASSWORD_HASH_LOG_N within these bounds, which are also the only ones a stored hash may carry.
 */
export const PASSWORD_HASH_LOG_N = { default: 17, min: 14, max: 20 } as const;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_BYTES = 64;
const SALT_BYTES = 16;

export const PASSWORD_MIN_LENGTH = 8;
/** Long enough for any passphrase (NIST asks for at least 64), short enough to bound the work. */
export const PASSWORD_MAX_LENGTH = 256;

/** What is wrong with a password a person chose, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `a password needs at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `a password has at most ${PASSWORD_MAX_LENGTH} characters`;
  return undefined;
}

/** scrypt needs 128 · N · r bytes; node refuses anything over maxmem (32 MiB by default). */
const maxmem = (logN: number, r: number) => 128 * 2 ** logN * r + 16 * 1024 * 1024;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return scrypt(password.normalize('NFKC'), salt, keylen, { N: 2 ** logN, r, p, maxmem: maxmem(logN, r) });
}

/**
 * A self-describing hash at N = 2^logN, `scrypt$<log2 N>$<r>$<p>$<salt>$<key>` (base64url), so that the
 * cost can change while older hashes still verify at theirs. The password is NFKC-normalised
 * first, so the same password typed on another keyboard or system still matches.
 */
export async function hashPassword(password: string, logN: number): Promise<string> {
  const salt = crypto.randomBytes(SALT_BYTES);
  const key = await derive(password, salt, logN, BLOCK_SIZE, PARALLELISM, KEY_BYTES);
  return ['scrypt', logN, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Accepts only parameters this module could have written, so a tampered row cannot ask for gigabytes. */
function parse(stored: string) {
  const [scheme, logN, r, p, salt, key] = stored.split('$');
  const numbers = [logN, r, p].map(Number);
  if (scheme !== 'scrypt' || salt === undefined || key === undefined || numbers.some((n) => !Number.isInteger(n))) return undefined;
  const [n, block, parallel] = numbers as [number, number, number];
  if (n < PASSWORD_HASH_LOG_N.min || n > PASSWORD_HASH_LOG_N.max || block < 1 || block > 16 || parallel < 1 || parallel > 4) return undefined;
  return { logN: n, r: block, p: parallel, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') };
}

/** A hash of a random password per cost: verifying against it costs what a real verification costs. */
const decoys = new Map<number, Promise<string>>();

/**
 * Whether the password matches the stored hash, compared in constant time. Without a stored hash (no
 * such account, or one without a password) a decoy hash made at `logN`, the cost new hashes are made
 * at, is verified instead and the answer is false, so a caller cannot tell from the time taken whether
 * an account exists.
 */
export async function verifyPassword(password: string, stored: string | null | undefined, logN: number): Promise<boolean> {
  if (stored === null || stored === undefined) {
    let decoy = decoys.get(logN);
    if (decoy === undefined) decoys.set(logN, (decoy = hashPassword(crypto.randomBytes(16).toString('hex'), logN)));
    await verifyPassword(password, await decoy, logN);
    return false;
  }
  const parsed = parse(stored);
  if (!parsed || parsed.key.length === 0) return false;
  const key = await derive(password, parsed.salt, parsed.logN, parsed.r, parsed.p, parsed.key.length);
  return crypto.timingSafeEqual(key, parsed.key);
}
