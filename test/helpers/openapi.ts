import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Harness, type ApiResponse } from './harness.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type Json = Record<string, any>;

/**
 * Checks real answers against the document the service serves: the body against the schema of the
 * documented status and content type (with Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses), every
 * documented header that was sent against its schema, the rate-limit headers sent where documented,
 * and an error's value as one the operation lists for that status (its `enum` and its examples).
 */
export class Conformance {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, validateSchema: false, allErrors: true }));

  constructor(readonly doc: Json) {
    this.ajv.addSchema(doc, 'openapi.json');
  }

  private validate(schema: unknown, value: unknown, what: string): void {
    // The document's own references are relative to its root, registered above as openapi.json.
    const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"openapi.json#/'));
    const check = this.ajv.compile(rooted);
    assert.ok(check(value), `${what}: ${this.ajv.errorsText(check.errors)}`);
  }

  private resolve(node: Json): Json {
    if (typeof node.$ref !== 'string') return node;
    return node.$ref
      .slice(2)
      .split('/')
      .reduce((at: Json, part: string) => at[part], this.doc);
  }

  check(method: string, path: string, res: ApiResponse): void {
    const operation = this.doc.paths[path]?.[method];
    assert.ok(operation, `${method} ${path} is documented`);
    const documented = operation.responses[String(res.status)];
    assert.ok(documented, `${method} ${path} documents ${res.status}`);
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
    const media = documented.content?.[type];
    if (res.status === 204) assert.equal(res.text, '', `${method} ${path} 204 has no body`);
    else {
      assert.ok(media, `${method} ${path} ${res.status} documents ${type}`);
      this.validate(media.schema, type === 'application/json' ? res.body : res.text, `${method} ${path} ${res.status} body`);
    }
    // Documented where the limiter counts the operation, and sent there on every answer.
    for (const name of ['RateLimit', 'RateLimit-Policy']) {
      assert.equal(res.headers.has(name), documented.headers?.[name] !== undefined, `${method} ${path} ${res.status}: ${name} sent as documented`);
    }
    for (const [name, reference] of Object.entries<Json>(documented.headers ?? {})) {
      const header = this.resolve(reference);
      const value = res.headers.get(name);
      if (value === null) continue;
      this.validate(header.schema, header.schema.type === 'integer' ? Number(value) : value, `${method} ${path} ${res.status} ${name}`);
    }
    if (res.status >= 400) {
      assert.ok(Object.keys(media.examples ?? {}).includes(res.body.error), `${method} ${path} ${res.status} lists ${res.body.error}`);
    }
  }
}

/** The document as the service serves it. */
export async function served(h: Harness): Promise<Json> {
  const res = await h.request('GET', '/openapi.json');
  assert.equal(res.status, 200);
  return res.body;
}

/** The document as a service of its own on SQLite serves it, for suites that read it alone. */
export async function servedDocument(): Promise<Json> {
  const h = await Harness.start('sqlite');
  try {
    return await served(h);
  } finally {
    await h.close();
  }
}
