import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from './common-schemas.js';
import { Link } from '../../links/link-schemas.js';

/**
 * The OpenAPI document is generated from the same TypeBox schemas that validate requests and
 * serialize responses. Scopes are listed per operation in `security` (OpenAPI 3.1 allows role names
 * for non-OAuth schemes) and repeated in `x-scopes`.
 */
export async function installOpenApi(app: FastifyInstance): Promise<void> {
  app.addSchema(ErrorBody);
  app.addSchema(Link);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Short Links, Tracked QR and Analytics API',
        version: '1.1.0',
        description: 'Beta. Error bodies are exactly {"error": value}; see docs/errors.md for the catalog.',
      },
      servers: [{ url: '/api/v1' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Account key: shl_live_…' },
          trialToken: { type: 'apiKey', in: 'header', name: 'X-Service-Trial-Token' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // @fastify/swagger marks every body schema as required; a route whose body may be omitted says
    // so with `x-body-optional`, and the document is corrected here.
    transformObject: (documents) => {
      const document = (documents as { openapiObject: OpenApiDocument }).openapiObject;
      for (const operations of Object.values(document.paths ?? {})) {
        for (const operation of Object.values(operations)) {
          if (!operation['x-body-optional']) continue;
          delete operation['x-body-optional'];
          if (operation.requestBody) operation.requestBody.required = false;
        }
      }
      return document as never;
    },
    transform: ({ schema, url }) => {
      const path = url.startsWith('/api/v1') ? url.slice('/api/v1'.length) || '/' : url;
      return { schema: schema as never, url: path };
    },
  });
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, { 'x-body-optional'?: boolean; requestBody?: { required?: boolean } }>>;
}

/**
 * Documentation of who may call an operation, for the route's `schema`. `anonymous`: the operation
 * also works without credentials (POST /links makes a trial link); OpenAPI says so with an empty
 * security requirement.
 */
export function access(scope: string | null, options: { trialToken?: boolean; anonymous?: boolean } = {}) {
  if (scope === null) return { security: [] as Record<string, string[]>[], 'x-scopes': [] as string[] };
  const security: Record<string, string[]>[] = [{ apiKey: [scope] }];
  if (options.trialToken) security.push({ trialToken: [] });
  if (options.anonymous) security.push({});
  return { security, 'x-scopes': [scope] };
}
