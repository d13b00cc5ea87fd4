import crypto from 'node:crypto';
import fc from 'fast-check';

/** One operation of the live OpenAPI document, with what the fuzzer needs to aim at it. */
export interface Operation {
  method: string;
  path: string;
  query: Array<{ name: string; schema: Schema }>;
  body: Schema | undefined;
}

export interface Schema {
  type?: string;
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  properties?: Record<string, Schema>;
  required?: string[];
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string; schema: Schema }>;
  requestBody?: { content?: Record<string, { schema: Schema }> };
}

/** Every operation of the document, so endpoints added later are fuzzed without touching this suite. */
export function operationsOf(doc: { paths: Record<string, Record<string, OpenApiOperation>> }): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
      body: op.requestBody?.content?.['application/json']?.schema,
    })),
  );
}

export const HUGE = 'x'.repeat(1024 * 1024 + 10);

const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__'];

const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\u202e',
    '𝕏'.repeat(60),
    'é'.repeat(3000),
    'javascript:alert(1)',
    'http://sho.rt/s/abc',
    'https://example.org/',
    'https://example.org/?q=%00',
    '../../etc/passwd',
    '%',
    '%zz',
    "' or 1=1 --",
    '${7*7}',
    '<script>',
    ...POLLUTING_KEYS,
  ),
  fc.constant('y'.repeat(70_000)),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.integer(),
  fc.constantFrom(0, -1, 1, 10, 50, 256, 2048, 2049, 1e308, -0, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, 0.5, true, false, null),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom({ __proto__: null, polluted: true }, [[[[]]]], { $ref: '#' }),
);

/** A value the schema accepts (the domain rules behind it may still refuse it). */
function validFor(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.type === 'integer' || schema.type === 'number') return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 3, 100_000) });
  if (schema.format === 'uri') return fc.webUrl();
  if (schema.type === 'string') return fc.string({ minLength: 1, maxLength: Math.min(schema.maxLength ?? 40, 40) });
  return hostileValue;
}

/** A value that is sometimes valid for the schema (so requests get past validation), often not. */
const valueFor = (schema: Schema): fc.Arbitrary<unknown> => fc.oneof({ arbitrary: validFor(schema), weight: 2 }, { arbitrary: hostileValue, weight: 1 });

/** An object of valid values, required fields always present, so requests reach the domain rules. */
function validObject(schema: Schema | undefined): fc.Arbitrary<Array<[string, unknown]>> {
  const fields = Object.entries(schema?.properties ?? {}).map(([name, s]) => {
    const value = validFor(s).map((v): [string, unknown] => [name, v]);
    return schema?.required?.includes(name) ? value.map((e) => [e]) : fc.option(value, { nil: undefined }).map((e) => (e ? [e] : []));
  });
  return fc.tuple(...fields).map((parts) => parts.flat());
}

/**
 * A JSON text built by hand, so it can hold what JSON.stringify of an object never emits: duplicate
 * keys and an own "__proto__" key, the shapes of prototype-pollution attacks.
 */
const jsonObjectText = (entries: Array<[string, unknown]>): string =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;

function bodyFor(schema: Schema | undefined): fc.Arbitrary<string | undefined> {
  const known = Object.entries(schema?.properties ?? {});
  const entry = fc.oneof(
    ...known.map(([name, s]) => fc.tuple(fc.constant(name), valueFor(s))),
    fc.tuple(fc.constantFrom(...POLLUTING_KEYS), fc.oneof(hostileValue, fc.constant({ polluted: true }))),
    fc.tuple(fc.string({ maxLength: 12 }), hostileValue),
  );
  return fc.oneof(
    { arbitrary: validObject(schema).map(jsonObjectText), weight: 6 },
    { arbitrary: fc.array(entry, { maxLength: 6 }).map(jsonObjectText), weight: 6 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), weight: 1 },
    { arbitrary: fc.constantFrom('{', '{"a":', '[', 'nul', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}'), weight: 1 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: fc.constant(`{"title":"${HUGE}"}`), weight: 1 },
  );
}

export interface Secrets {
  key: string;
  readOnlyKey: string;
  trialToken: string;
  linkId: string;
  trialLinkId: string;
}

/** encodeURIComponent throws on lone surrogates; the round trip through UTF-8 makes them U+FFFD. */
const encode = (text: string): string => encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));
const asText = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

const uuid = fc.uuid().map((u) => u.toLowerCase());

function pathFor(template: string, secrets: Secrets): fc.Arbitrary<string> {
  const segment = fc.oneof(
    fc.constantFrom(secrets.linkId, secrets.trialLinkId, secrets.linkId.toUpperCase()),
    uuid,
    hostileText.map(encode),
    fc.constantFrom('%', '%zz', '%00', '%c0%ae%c0%ae', '..', '%2e%2e%2f', 'a'.repeat(5000), '__proto__', 'constructor', '%F0%9D%95%8F'),
  );
  const names = template.match(/\{[^}]+\}/g) ?? [];
  return fc.tuple(...names.map(() => segment)).map((values) => names.reduce((p, name, i) => p.replace(name, values[i] as string), template));
}

function queryFor(params: Operation['query']): fc.Arbitrary<string> {
  const pair = fc.oneof(
    ...params.map((p) => fc.tuple(fc.constant(p.name), valueFor(p.schema).map(asText))),
    fc.tuple(fc.constantFrom(...POLLUTING_KEYS, 'a[b]', 'offset[]', '__proto__[polluted]'), hostileText),
  );
  const raw = fc.constantFrom('%', '%zz', '&&&', '=', '==', 'a=%ff%fe', 'offset=1&offset=2');
  return fc.oneof(
    fc.array(pair, { maxLength: 5 }).map((pairs) => pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')),
    raw,
  );
}

const headerValue = fc.oneof(fc.string({ maxLength: 60 }), fc.constant('z'.repeat(8000)));

function headersFor(secrets: Secrets): fc.Arbitrary<Record<string, string>> {
  const optional = (arb: fc.Arbitrary<string>) => fc.option(arb, { nil: undefined });
  return fc
    .record({
      authorization: optional(
        fc.oneof(
          { arbitrary: fc.constant(`Bearer ${secrets.key}`), weight: 6 },
          fc.constantFrom(`Bearer ${secrets.readOnlyKey}`, `bearer ${secrets.key}`, `Basic ${secrets.key}`, 'Bearer shl_live_nope'),
          headerValue,
          headerValue.map((v) => `Bearer ${v}`),
        ),
      ),
      'x-service-trial-token': optional(fc.oneof(fc.constant(secrets.trialToken), headerValue)),
      'idempotency-key': optional(fc.oneof({ arbitrary: uuid, weight: 4 }, fc.constant('6f1e9f0e-1c4b-4a52-9a87-1f0c0ef1d6a1'), headerValue)),
      'content-type': fc.oneof(
        { arbitrary: fc.constant('application/json'), weight: 6 },
        fc.constantFrom(
          undefined,
          'application/json; charset=utf-8',
          'APPLICATION/JSON',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/json; charset=latin1',
          '',
        ),
      ),
      'x-forwarded-for': optional(fc.oneof(fc.ipV4(), fc.ipV6(), headerValue)),
      extra: fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), headerValue, { maxKeys: 3 }),
    })
    .map(({ extra, ...named }) => {
      const headers: Record<string, string> = { ...extra };
      for (const [k, v] of Object.entries(named)) if (v !== undefined) headers[k] = v;
      return headers;
    });
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
}

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** A request aimed at one operation: mostly its own method, sometimes another one. */
export function requestFor(op: Operation, secrets: Secrets): fc.Arbitrary<FuzzRequest> {
  const method = fc.oneof({ arbitrary: fc.constant(op.method), weight: 5 }, { arbitrary: fc.constantFrom(...OTHER_METHODS), weight: 1 });
  return fc
    .record({ method, path: pathFor(op.path, secrets), query: queryFor(op.query), headers: headersFor(secrets), payload: bodyFor(op.body) })
    .map(({ method, path, query, headers, payload }) => ({
      method,
      url: `/api/v1${path}${query ? `?${query}` : ''}`,
      headers,
      payload: method === 'GET' || method === 'OPTIONS' ? undefined : payload,
    }));
}

export const randomEmail = () => `${crypto.randomUUID()}@example.test`;
