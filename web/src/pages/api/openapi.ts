/** The parts of an OpenAPI 3.1 document the reference page reads. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
  title?: string;
}

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

export interface Response {
  description?: string;
  content?: Record<string, { schema?: Schema; examples?: Record<string, { value?: unknown }> }>;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, Response>;
  security?: Record<string, string[]>[];
  'x-website-only'?: boolean;
}

export interface OpenApiDocument {
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** `#/components/schemas/Link` → `Link`. */
export const refName = (ref: string): string => ref.split('/').pop() ?? ref;

export function resolve(document: OpenApiDocument, schema: Schema): Schema {
  if (!schema.$ref) return schema;
  return document.components?.schemas?.[refName(schema.$ref)] ?? {};
}
