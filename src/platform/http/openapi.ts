import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from './common-schemas.js';
import { completeResponses, type DocumentOperation } from './openapi-responses.js';
import { OPENAPI_INFO, OPENAPI_TAGS, RESPONSE_HEADERS, SECURITY_SCHEMES } from './openapi-document.js';
import { AliasAvailability, AliasCheckAnswer, Link, LinkCreated, LinkFields, LinkList, TagList, TrialAllowance } from '../../links/link-schemas.js';
import { CapacityPack, QuoteResult, Usage } from '../../billing/billing-schemas.js';
import { Stats, TagStats } from '../../analytics/stats-schemas.js';

/** The shapes the document names: each is one entry of `components.schemas`, and routes `$ref` it. */
const COMPONENTS = [
  ErrorBody,
  LinkFields,
  Link,
  LinkCreated,
  LinkList,
  TrialAllowance,
  AliasAvailability,
  AliasCheckAnswer,
  TagList,
  Usage,
  QuoteResult,
  Stats,
  TagStats,
  CapacityPack,
];

/**
 * The OpenAPI document is generated from the same TypeBox schemas that validate requests and
 * serialize responses; the route options add what each operation means (operationId, tags, texts,
 * its own error conditions). What the service does on every operation is added here once: the errors
 * every operation may answer, 401/403 as the operation's security implies, and the response headers.
 */
export async function installOpenApi(app: FastifyInstance): Promise<void> {
  for (const schema of COMPONENTS) app.addSchema(schema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: OPENAPI_INFO,
      servers: [{ url: '/api/v1' }],
      tags: OPENAPI_TAGS,
      components: { securitySchemes: SECURITY_SCHEMES, headers: RESPONSE_HEADERS },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transformObject: (documents) => {
      const document = (documents as { openapiObject: OpenApiDocument }).openapiObject;
      for (const operations of Object.values(document.paths ?? {})) {
        for (const operation of Object.values(operations)) completeOperation(operation);
      }
      return document;
    },
    transform: ({ schema, url }) => {
      const path = url.startsWith('/api/v1') ? url.slice('/api/v1'.length) || '/' : url;
      return { schema, url: path };
    },
  });
}

interface OpenApiOperation extends DocumentOperation {
  'x-body-optional'?: boolean;
  requestBody?: { required?: boolean };
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>;
}

function completeOperation(operation: OpenApiOperation): void {
  // @fastify/swagger marks every body schema as required; a route whose body may be omitted says so
  // with `x-body-optional`.
  if (operation['x-body-optional']) {
    delete operation['x-body-optional'];
    if (operation.requestBody) operation.requestBody.required = false;
  }
  completeResponses(operation);
}
