import { Type, type TUnsafe } from '@sinclair/typebox';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';

/** A string enum as a plain JSON-schema `enum` (TypeBox unions would become anyOf in the OpenAPI document). */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** An integer constant (TypeBox's Literal says `type: number`, which misdescribes it). */
export const IntegerConst = <const N extends number>(value: N): TUnsafe<N> => Type.Unsafe<N>({ type: 'integer', const: value });

/** A non-negative integer count, described. */
export const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const ErrorBody = Type.Object(
  { error: StringEnum(Object.keys(ERROR_STATUS) as ErrorCode[], { description: 'Error value from the catalog (docs/errors.md)' }) },
  { additionalProperties: false, $id: 'ErrorBody', title: 'Error' },
);

export const UuidParams = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.String({ format: 'uuid', description: 'Required; reuse it (with the identical payload) after an uncertain result' }),
});

export type { ErrorCode };

/**
 * Marks a body schema whose bounded strings are ASCII whenever they are valid (a base64 data URL), so
 * that a string's length may be counted in UTF-16 code units, as `.length` counts it, rather than in
 * code points. Ajv counts code points one character at a time: for a 700 000-character logo that is
 * half a millisecond of the event loop per request (bench/qr-load.ts), for a count that can only
 * differ on a string that is refused anyway. An OpenAPI extension, so the document may keep it.
 */
export const CODE_UNIT_LENGTHS = 'x-lengths-in-code-units';
