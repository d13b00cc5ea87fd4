import type { FastifySchemaValidationError } from 'fastify';
import { canonicalUuid } from '../uuids.js';
import { MALFORMED_QUERY } from './strict-parsers.js';

/** A compiled validator as Fastify calls it: true, false (its `errors` then say why) or an error. */
type Check = ((data: unknown) => boolean | { error: Error }) & { errors?: FastifySchemaValidationError[] | null };

const invalid = (validation: unknown) => ({ error: Object.assign(new Error('invalid request'), { statusCode: 400, validation }) });

/**
 * The validator of a request part (path, query, headers, body) that, once the part is valid, writes
 * each of its `format: uuid` properties in canonical form, so that every route, the domain and the
 * stores see one spelling of each id and key.
 */
export function withCanonicalUuids(schema: object, check: Check): Check {
  const properties = (schema as { properties?: Record<string, { format?: unknown }> }).properties ?? {};
  const uuids = Object.keys(properties).filter((name) => properties[name]?.format === 'uuid');
  if (uuids.length === 0) return check;
  return (data: unknown) => {
    const result = check(data);
    if (result === false) return invalid(check.errors);
    if (result === true && typeof data === 'object' && data !== null) {
      const values = data as Record<string, unknown>;
      for (const name of uuids) {
        const value = values[name];
        if (typeof value === 'string') values[name] = canonicalUuid(value);
      }
    }
    return result;
  };
}

/** The query's validator, refusing a query string that could not be decoded (strict-parsers.ts, parseQuery). */
export function refusingMalformedQuery(check: Check): Check {
  return (data: unknown) => {
    if (typeof data === 'object' && data !== null && MALFORMED_QUERY in data) return invalid(undefined);
    const result = check(data);
    return result === false ? invalid(check.errors) : result;
  };
}
