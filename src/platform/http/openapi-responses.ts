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
 * A route's own error responses, one per status, for the errors its service answers (a link not
 * found, a stale version, credits): the description lists each error value with when it is answered,
 * and each value is an example of the Error body. What the pipeline answers on every route is added
 * by completeResponses, from what each part noted (noteConditions).
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

/**
 * Where the parts of the request pipeline note, on a route's schema, the errors they answer there;
 * the note reaches the document as an extension of the operation, which completeResponses reads and
 * removes.
 */
const NOTED = 'x-conditions';

/** A noted condition: its words, and whether they hold beside a route's own words for the value. */
interface Noted {
  when: string;
  beside: boolean;
}

/**
 * Notes on a route (from an onRoute hook) that it may answer `conditions`. Each part of the pipeline
 * that refuses requests (authentication, rate limits, the CSRF check) notes what it refuses on each
 * route it runs on, so the document follows what runs: nothing is listed by hand per route. A route
 * that describes a value itself (errorResponses) replaces the noted words for it, unless they are a
 * cause of their own that the route does not know of (`beside`: the CSRF check's).
 * Idempotent: a GET route and its HEAD share one schema.
 */
export function noteConditions(route: { schema?: object }, conditions: Conditions, beside = false): void {
  const schema = (route.schema ??= {}) as { [NOTED]?: Record<string, Noted[]> };
  const noted = (schema[NOTED] ??= {});
  for (const [code, when] of Object.entries(conditions)) {
    const entries = (noted[code] ??= []);
    if (!entries.some((entry) => entry.when === when)) entries.push({ when, beside });
  }
}

/** An operation of the generated document, as far as completing its responses needs. */
export interface DocumentOperation {
  responses: Record<string, DocumentResponse>;
  [NOTED]?: Record<string, Noted[]>;
}

interface DocumentResponse {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, { schema?: unknown; examples?: Record<string, unknown> }>;
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** What every operation may answer: malformed input, and storage trouble or load shedding. */
const EVERYWHERE: Conditions = { invalid_request: GENERAL.invalid_request, links_unavailable: GENERAL.links_unavailable };

/**
 * Completes an operation of the document with every error it can answer: those of EVERYWHERE, those
 * the pipeline noted on its route, and the route's own (whose words for a value come first). Each
 * error status's body lists exactly the error values it can carry (an `enum`), each an example. The
 * rate-limit headers are on every response of an operation the limiter counts, and `Retry-After` on
 * 429 and 503. Statuses end in numeric order.
 */
export function completeResponses(operation: DocumentOperation): void {
  const responses = operation.responses;
  const noted: Record<string, Noted[]> = { ...operation[NOTED] };
  delete operation[NOTED];
  for (const [code, when] of Object.entries(EVERYWHERE)) noted[code] = [{ when, beside: false }, ...(noted[code] ?? [])];
  for (const [code, entries] of Object.entries(noted) as [ErrorCode, Noted[]][]) {
    const status = String(ERROR_STATUS[code]);
    const response = (responses[status] ??= { description: '', content: { 'application/json': { examples: {} } } });
    const media = response.content!['application/json']!;
    const own = media.examples?.[code] !== undefined;
    const when = entries
      .filter((entry) => !own || entry.beside)
      .map((entry) => entry.when)
      .join(' ');
    if (when === '') continue;
    if (own) {
      // The value's paragraph of the description (one line each) gets the further cause.
      response.description = response.description.replace(new RegExp(`^\`${code}\`: .*$`, 'm'), (line) => `${line} ${when}`);
      continue;
    }
    media.examples = { ...media.examples, [code]: { summary: firstSentence(when), value: { error: code } } };
    response.description = [response.description, `\`${code}\`: ${when}`].filter(Boolean).join('\n\n');
  }
  for (const [status, response] of Object.entries(responses)) {
    const media = response.content?.['application/json'];
    if (Number(status) >= 400 && media?.examples !== undefined) media.schema = errorBody(Object.keys(media.examples));
    // The limiter notes rate_limited on each route it counts (rate-limit-plugin.ts); every answer it counted carries these.
    if (noted.rate_limited !== undefined)
      response.headers = { ...response.headers, RateLimit: header('RateLimit'), 'RateLimit-Policy': header('RateLimit-Policy') };
    if (status === '429' || status === '503') response.headers = { ...response.headers, 'Retry-After': header('Retry-After') };
  }
  operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/** The Error body, its `error` narrowed to the values one status of one operation can carry. */
const errorBody = (codes: string[]) => ({
  allOf: [{ $ref: '#/components/schemas/ErrorBody' }, { type: 'object', properties: { error: { type: 'string', enum: codes } } }],
});
