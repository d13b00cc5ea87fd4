import crypto from 'node:crypto';

/**
 * TOTP (RFC 6238) over HMAC-SHA1, 6 digits, 30-second steps: what every authenticator app reads from
 * an `otpauth://` URI. Written here rather than taken from a package: it is node:crypto's HMAC and a
 * few lines of arithmetic, where the maintained packages bring a hashing library of their own whose
 * newest versions need a later Node 20 than this service does. RFC 6238's test vectors hold it
 * (test/accounts/totp.test.ts).
 */
export const TOTP_STEP_SECONDS = 30;
const DIGITS = 6;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), in base32 as apps take it. */
export const newTotpSecret = (): string => base32(crypto.randomBytes(20));

export function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function fromBase32(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    value = (value << 5) | BASE32.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** The step a time falls in (Unix milliseconds). */
export const totpStep = (ms: number): number => Math.floor(ms / 1000 / TOTP_STEP_SECONDS);

/** The code of one step (RFC 4226's dynamic truncation), with leading zeros. */
export function totpCode(secret: string, step: number, digits = DIGITS): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = crypto.createHmac('sha1', fromBase32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 15;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/**
 * The step whose code this is, among the step of `now` and one on either side (a phone's clock a few
 * seconds off, a code typed as it changed), or undefined. The caller refuses a step already used.
 */
export function matchingStep(secret: string, code: string, now: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const current = totpStep(now);
  for (const step of [current, current - 1, current + 1]) {
    const expected = Buffer.from(totpCode(secret, step));
    if (crypto.timingSafeEqual(expected, Buffer.from(code))) return step;
  }
  return undefined;
}

/** What authenticator apps scan: issuer and account name, and the secret. */
export function otpauthUri(secret: string, issuer: string, account: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${DIGITS}&period=${TOTP_STEP_SECONDS}`;
}
