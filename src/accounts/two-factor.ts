import crypto from 'node:crypto';
import QRCode from 'qrcode';
import { hashSecret } from '../platform/auth/secrets.js';
import { AppError } from '../platform/errors.js';
import type { Clock } from '../platform/time.js';
import { matchingStep, newTotpSecret, otpauthUri } from './totp.js';
import type { KyselyTwoFactorStore } from './two-factor-store.js';
import type { AuthLimits } from './auth-limits.js';

/** Recovery codes made when two-factor sign-in is turned on, each good once. */
export const RECOVERY_CODES = 10;

/** `xxxx-xxxx-xxxx` from an alphabet without look-alikes (no 0/O, 1/l/I). */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const newRecoveryCode = () =>
  Array.from({ length: 3 }, () => Array.from({ length: 4 }, () => RECOVERY_ALPHABET[crypto.randomInt(RECOVERY_ALPHABET.length)]).join('')).join('-');
/** Typed with or without its dashes and spaces, in any case. */
const normalRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]+/g, '');

export interface TwoFactorSetup {
  secret: string;
  otpauthUri: string;
  /** The URI as a QR code (SVG), for the settings page to show beside the secret. */
  qrSvg: string;
}

/**
 * Two-factor sign-in with an authenticator app (TOTP, RFC 6238) and one-time recovery codes
 * (docs/adr/0081). Set up in two steps, so a secret is on only once the person's app shows a good
 * code; turned off only with a code. A TOTP code is accepted once (the step it was for is kept).
 */
export class TwoFactor {
  constructor(private readonly deps: { store: KyselyTwoFactorStore; limits: Pick<AuthLimits, 'check'>; issuer: string; now: Clock }) {}

  async status(accountId: string): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
    const state = await this.deps.store.state(accountId);
    return { enabled: state.secret !== null, recoveryCodesLeft: state.secret === null ? 0 : state.recoveryCodesLeft };
  }

  async enabled(accountId: string): Promise<boolean> {
    return (await this.deps.store.state(accountId)).secret !== null;
  }

  /** A new secret, pending until confirmed; turning on again while on is a conflict. */
  async setUp(accountId: string, email: string): Promise<TwoFactorSetup> {
    if (await this.enabled(accountId)) throw new AppError('request_conflict');
    const secret = newTotpSecret();
    await this.deps.store.setPending(accountId, secret);
    const uri = otpauthUri(secret, this.deps.issuer, email);
    return { secret, otpauthUri: uri, qrSvg: await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }) };
  }

  /** A good code from the app turns it on and gives the recovery codes, shown this once. */
  async confirm(accountId: string, code: string): Promise<{ recoveryCodes: string[] }> {
    const { secret, pending } = await this.deps.store.state(accountId);
    if (secret !== null) throw new AppError('request_conflict');
    const step = pending === null ? undefined : matchingStep(pending, code.trim(), this.deps.now());
    if (pending === null || step === undefined) throw new AppError('invalid_request');
    const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    if (
      !(await this.deps.store.enable(
        accountId,
        pending,
        step,
        recoveryCodes.map((recovery) => hashSecret(normalRecoveryCode(recovery))),
      ))
    )
      throw new AppError('request_conflict');
    return { recoveryCodes };
  }

  /** Turning it off takes a code, counted per network and address like the sign-in's codes. */
  async disable(account: { accountId: string; email: string }, code: string, network: string): Promise<void> {
    await this.deps.limits.check('code', network, account.email);
    if (!(await this.check(account.accountId, code))) throw new AppError('invalid_request');
    await this.deps.store.disable(account.accountId);
  }

  /** Whether the code is good now: a TOTP code not used before, or an unused recovery code (used up by this). */
  async check(accountId: string, code: string): Promise<boolean> {
    const { secret } = await this.deps.store.state(accountId);
    if (secret === null) return false;
    const step = matchingStep(secret, code.trim(), this.deps.now());
    if (step !== undefined) return this.deps.store.takeStep(accountId, step);
    return this.deps.store.useRecoveryCode(accountId, hashSecret(normalRecoveryCode(code)), this.deps.now());
  }
}
