import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as Fastify parses them (secure-json-parse: `__proto__` and `constructor` keys are
 * errors), but only if they are what they claim to be: UTF-8 text (RFC 8259) whose strings are all
 * well-formed Unicode. Node would decode stray bytes and unpaired `\uD800` escapes alike into
 * U+FFFD, so the service would store something other than what was sent; such a body is 400.
 */
export function installStrictJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (!isUtf8(body as Buffer)) return done(badBody('the body is not UTF-8'), undefined);
    // The default parser answers through the callback; its declared type also allows a promise.
    void parse(request, (body as Buffer).toString('utf8'), (error: Error | null, value?: unknown) => {
      if (error === null && !wellFormed(value)) return done(badBody('the body holds an unpaired surrogate'), undefined);
      done(error, value);
    });
  });
}

const badBody = (message: string) => Object.assign(new Error(message), { statusCode: 400 });

/** In Unicode mode a surrogate pair is one code point, so this matches unpaired surrogates only. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Every string (keys included) in a parsed JSON value is well-formed; iterative, as the value may be deeply nested. */
function wellFormed(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (LONE_SURROGATE.test(next)) return false;
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, item] of Object.entries(next)) {
        if (LONE_SURROGATE.test(key)) return false;
        pending.push(item);
      }
    }
  }
  return true;
}

/** Marks a query string that held a malformed percent-encoding or one that is not UTF-8. */
export const MALFORMED_QUERY: unique symbol = Symbol('malformed query');

export type ParsedQuery = Record<string, string | string[]> & { [MALFORMED_QUERY]?: true };

/**
 * The router's query string parser: what Fastify's does (`+` is a space; a repeated name becomes a
 * list), except that a percent-encoding it cannot decode (`%zz`, `%ff`) is not kept as literal text
 * but marks the query, and a route with a query schema answers 400 (app.ts, validators).
 */
export function parseQuery(text: string): ParsedQuery {
  const query = Object.create(null) as ParsedQuery;
  if (text.length === 0) return query;
  for (const pair of text.split('&')) {
    if (pair.length === 0) continue;
    const equals = pair.indexOf('=');
    const name = decode(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : decode(pair.slice(equals + 1));
    if (name === undefined || value === undefined) {
      query[MALFORMED_QUERY] = true;
      continue;
    }
    const earlier = query[name];
    query[name] = earlier === undefined ? value : Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
  }
  return query;
}

function decode(text: string): string | undefined {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}
