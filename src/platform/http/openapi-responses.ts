import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { API_LIMITS } from '../api-limits.js';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';

const bodyLimit = `${API_LIMITS.requests.maxBodyBytes / 1_048_576} MiB`;

/** When each error value is answered, in words: per operation, or the same everywhere. */
export type Conditions = Partial<Record<ErrorCode, string>>;

/** The conditions every operation shares; a route that says more about one of them extends its text. */
export const GENERAL: Readonly<Record<'invalid_request' | 'rate_limited' | 'links_unavailable', string>> = {
  invalid_request: `Input that is malformed, out of bounds or cannot be read exactly: path, query (integers in decimal digits only), headers (Host, Authorization, X-Service-Trial-Token, Idempotency-Key and Content-Type at most once each), or body (schema, bounds, unknown properties, malformed JSON, text that is not UTF-8 or holds an unpaired surrogate, a wrong content type, more than ${bodyLimit}).`,
  rate_limited:
    'More requests in a minute than the caller’s network or the key’s account may make at this edge location (API.md part 8). `Retry-After` says when to try again.',
  links_unavailable:
    'Storage is unreachable or saturated, the service is shedding load, or an unexpected failure (never a 500). `Retry-After` says when to try again.',
};

/**
 * The success response of a shared component: a `$ref` in the document (the component is registered
 * in openapi.ts), the component's type for the handler, and what the response means.
 */
export const ok = <T extends TSchema>(schema: T, description: string) => Type.Unsafe<Static<T>>(Type.Ref(schemaId(schema), { description }));

/** A `$ref` to a shared component, where a schema is expected (a media type of a response). */
export const ref = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>(Type.Ref(schemaId(schema)));

function schemaId(schema: TSchema): string {
  if (schema.$id === undefined) throw new Error('a response component needs an $id');
  return schema.$id;
}

export interface ErrorResponse {
  description: string;
  content: { 'application/json': { schema: TSchema; examples: Record<string, { summary: string; value: { error: ErrorCode } }> } };
}

/**
 * Error responses of an operation, one per status: the description lists each error value with when
 * it is answered, and each value is an example of the Error body. The OpenAPI plugin adds what every
 * operation shares (GENERAL, and 401/403 from the operation's security) where a route says nothing.
 */
export function errorResponses(conditions: Conditions): Record<number, ErrorResponse> {
  const byStatus = new Map<number, [ErrorCode, string][]>();
  for (const [code, when] of Object.entries(conditions) as [ErrorCode, string][]) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), [code, when]]);
  }
  return Object.fromEntries([...byStatus].map(([status, entries]) => [status, errorResponse(entries)]));
}

function errorResponse(entries: [ErrorCode, string][]): ErrorResponse {
  return {
    description: entries.map(([code, when]) => `\`${code}\`: ${when}`).join('\n\n'),
    content: {
      'application/json': {
        schema: Type.Ref('ErrorBody'),
        examples: Object.fromEntries(entries.map(([code, when]) => [code, { summary: firstSentence(when), value: { error: code } }])),
      },
    },
  };
}

/** An example's summary: the condition up to its first full stop, colon or semicolon. */
const firstSentence = (text: string): string => text.split(/(?<=\.) |[:;] /)[0]!.replace(/\.$/, '');

/** An operation of the generated document, as far as completing its responses needs. */
export interface DocumentOperation {
  security?: Record<string, string[]>[];
  responses: Record<string, DocumentResponse>;
}

interface DocumentResponse {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, { schema?: unknown; examples?: Record<string, unknown> }>;
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * Adds to an operation of the document what the service does on every operation: the errors of
 * GENERAL, 401 and 403 as its security implies, the rate-limit headers on every response, and
 * `Retry-After` on 429 and 503. Statuses end in numeric order.
 */
export function completeResponses(operation: DocumentOperation): void {
  const responses = operation.responses;
  for (const [code, when] of Object.entries({ ...GENERAL, ...callerConditions(operation.security ?? []) }) as [ErrorCode, string][]) {
    const status = String(ERROR_STATUS[code]);
    const response = (responses[status] ??= {
      description: '',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' }, examples: {} } },
    });
    const media = response.content!['application/json']!;
    if (media.examples?.[code] !== undefined) continue;
    media.examples = { ...media.examples, [code]: { summary: firstSentence(when), value: { error: code } } };
    response.description = [response.description, `\`${code}\`: ${when}`].filter(Boolean).join('\n\n');
  }
  for (const [status, response] of Object.entries(responses)) {
    response.headers = { ...response.headers, RateLimit: header('RateLimit'), 'RateLimit-Policy': header('RateLimit-Policy') };
    if (status === '429' || status === '503') response.headers['Retry-After'] = header('Retry-After');
  }
  operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/** 401 and 403 as the operation's security requirements imply them; none where anyone may call. */
function callerConditions(security: Record<string, string[]>[]): Conditions {
  const scope = security.find((requirement) => requirement.apiKey !== undefined)?.apiKey?.[0];
  if (scope === undefined) return {};
  const trialToken = security.some((requirement) => requirement.trialToken !== undefined);
  const anonymous = security.some((requirement) => Object.keys(requirement).length === 0);
  const badKey = 'an `Authorization` header that is not `Bearer <key>`, or a key that is unknown or revoked';
  return {
    api_key_invalid: anonymous
      ? `An invalid key: ${badKey}. A supplied header never falls back to the no-key trial.`
      : `Missing or invalid credentials: none at all, ${badKey}, or an \`X-Service-Trial-Token\` that is malformed or unknown.`,
    api_scope_required: trialToken
      ? `The key lacks the \`${scope}\` scope, or the trial token is another link’s.`
      : anonymous
        ? `The key lacks the \`${scope}\` scope.`
        : `The key lacks the \`${scope}\` scope, or a valid trial token is sent (it authorizes only reading its link, the link’s QR code and its stats).`,
  };
}
