import { refName, resolve, type OpenApiDocument, type Schema } from './openapi.js';
import { Markdown } from './markdown.js';

/** A schema's type in words: `string (uri, at most 2048)`, `array of Link`, `integer or null`. */
export function typeLabel(schema: Schema): string {
  if (schema.$ref) return refName(schema.$ref);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map(typeLabel).join(' or ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? (schema.allOf ? 'object' : 'any'));
  if (type === 'array' && schema.items) return `array of ${typeLabel(schema.items)}`;
  const notes = [
    schema.format,
    schema.enum && `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`,
    schema.minimum !== undefined && `at least ${schema.minimum}`,
    schema.maximum !== undefined && `at most ${schema.maximum}`,
    schema.minLength !== undefined && schema.minLength > 0 && `${schema.minLength} characters or more`,
    schema.maxLength !== undefined && `at most ${schema.maxLength} characters`,
    schema.default !== undefined && `default ${JSON.stringify(schema.default)}`,
  ].filter(Boolean);
  return notes.length > 0 ? `${type} (${notes.join(', ')})` : type;
}

function properties(document: OpenApiDocument, schema: Schema): { properties: Record<string, Schema>; required: string[] } {
  const parts = [schema, ...(schema.allOf ?? []).map((part) => resolve(document, part))];
  return {
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})) as Record<string, Schema>,
    required: parts.flatMap((part) => part.required ?? []),
  };
}

/** An object's fields as a nested list; references to named schemas link to them, so nothing repeats. */
export function SchemaView({ document, schema, depth = 0 }: { document: OpenApiDocument; schema: Schema; depth?: number }) {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return (
      <p>
        <a href={`#schema-${name}`}>{name}</a>
      </p>
    );
  }
  const target = schema.type === 'array' && schema.items && !schema.items.$ref ? schema.items : schema;
  const { properties: fields, required } = properties(document, target);
  const names = Object.keys(fields);
  if (names.length === 0) return <p>{typeLabel(schema)}</p>;
  return (
    <ul class="schema">
      {names.map((name) => {
        const field = fields[name]!;
        const nested = depth < 3 && !field.$ref && (field.properties || (field.items && !field.items.$ref && field.items.properties));
        return (
          <li key={name}>
            <code>{name}</code> <span class="type">{field.$ref ? <a href={`#schema-${refName(field.$ref)}`}>{typeLabel(field)}</a> : typeLabel(field)}</span>
            {required.includes(name) && <span class="required"> required</span>}
            {field.description && <Markdown text={field.description} />}
            {nested && <SchemaView document={document} schema={field} depth={depth + 1} />}
          </li>
        );
      })}
    </ul>
  );
}
