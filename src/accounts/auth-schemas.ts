import { Type } from '@sinclair/typebox';
import { StringEnum } from '../platform/http/common-schemas.js';
import { PASSWORD_MAX_LENGTH } from './passwords.js';

/** Strict bodies: an unknown property is 400 like anywhere else in the API. */
const strict = { additionalProperties: false } as const;

const Email = Type.String({ minLength: 3, maxLength: 254, description: 'Compared trimmed and in lower case' });
const Password = Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description: 'Never stored or logged; kept as a scrypt hash' });
const NewPassword = Type.String({
  minLength: 1,
  maxLength: PASSWORD_MAX_LENGTH,
  description: 'At least 8 characters and a zxcvbn score of 3 or more (hard to guess); otherwise 400 invalid_request',
});
const LinkToken = Type.String({ minLength: 1, maxLength: 100, description: 'The `token` of the link in the mail' });

const Code = Type.String({ minLength: 1, maxLength: 32, description: 'The 6-digit code of the authenticator app, or a recovery code' });

export const Credentials = Type.Object(
  {
    email: Email,
    password: Password,
    code: Type.Optional(Type.String({ ...Code, description: 'With two-factor sign-in on: the app’s code or a recovery code' })),
  },
  strict,
);
export const CodeRequired = Type.Object(
  { status: StringEnum(['code_required'] as const, { description: 'Two-factor sign-in is on: send the request again with `code`' }) },
  strict,
);
export const CodeBody = Type.Object({ code: Code }, strict);
export const TwoFactorStatus = Type.Object({ enabled: Type.Boolean(), recoveryCodesLeft: Type.Integer({ minimum: 0 }) }, strict);
export const TwoFactorSetup = Type.Object(
  {
    secret: Type.String({ description: 'Base32, for typing into an authenticator app' }),
    otpauthUri: Type.String({ description: 'The otpauth:// URI an app scans' }),
    qrSvg: Type.String({ description: 'The URI as a QR code, an SVG document' }),
  },
  strict,
);
export const RecoveryCodes = Type.Object({ recoveryCodes: Type.Array(Type.String(), { description: 'Each good once; shown only here' }) }, strict);
export const SignUpBody = Type.Object({ email: Email, password: NewPassword }, strict);
export const TokenBody = Type.Object({ token: LinkToken }, strict);
export const PasswordChangeBody = Type.Object({ currentPassword: Password, newPassword: NewPassword }, strict);
export const ResetBody = Type.Object({ email: Email }, strict);
export const ResetCheckBody = Type.Object({ token: LinkToken }, strict);
export const ResetLinkState = Type.Object(
  {
    state: StringEnum(['valid', 'used', 'expired', 'unknown'] as const, {
      description: '`used`: the link was used already, or a newer reset link replaced it; `unknown`: never issued, or long gone',
    }),
  },
  strict,
);

export const ResetConfirmBody = Type.Object({ token: LinkToken, password: NewPassword }, strict);
/** State-changing requests with a session are JSON even without fields (CSRF: docs/adr/0064-website-sessions.md). */
export const EmptyBody = Type.Object({}, strict);

export const SignedInAccount = Type.Object(
  {
    account: Type.Object({ id: Type.String({ format: 'uuid' }), email: Type.String() }, strict),
  },
  strict,
);

export const SessionState = Type.Object(
  {
    account: Type.Union([Type.Object({ id: Type.String({ format: 'uuid' }), email: Type.String() }, strict), Type.Null()], {
      description: 'The signed-in account, or null when this browser is signed out',
    }),
  },
  strict,
);

export const VerificationSent = Type.Object({ status: StringEnum(['verification_sent'] as const) }, strict);
export const ResetSent = Type.Object({ status: StringEnum(['reset_sent'] as const) }, strict);

export const Site = Type.Object(
  {
    signup: StringEnum(['open', 'closed'] as const, { description: 'closed: accounts come from the operator only' }),
    creditsHelp: Type.String({ description: 'How to get purchased credits, in the operator’s words (CREDITS_HELP)' }),
  },
  strict,
);
