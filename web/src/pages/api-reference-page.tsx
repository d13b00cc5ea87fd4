import { useEffect } from 'preact/hooks';
import { Busy, ErrorMessage } from '../ui/form.js';
import { useResource } from '../ui/use-resource.js';
import { Markdown } from './api/markdown.js';
import { METHODS, type OpenApiDocument, type Operation } from './api/openapi.js';
import { OperationView } from './api/operation-view.js';
import { SchemaView } from './api/schema-view.js';

/** Loaded as the page's own data, like any other: the document the server generates from its schemas. */
const loadDocument = async (): Promise<OpenApiDocument> => {
  const response = await fetch('/api/v1/openapi.json', { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`openapi.json: ${response.status}`);
  return (await response.json()) as OpenApiDocument;
};

interface Entry {
  method: string;
  path: string;
  operation: Operation;
}

function byTag(document: OpenApiDocument): { name: string; description?: string; entries: Entry[] }[] {
  const entries = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method]! })),
  );
  const tags = document.tags ?? [...new Set(entries.flatMap((e) => e.operation.tags ?? []))].map((name) => ({ name }));
  return tags.map((tag) => ({ ...tag, entries: entries.filter((e) => (e.operation.tags ?? []).includes(tag.name)) })).filter((tag) => tag.entries.length > 0);
}

/** The OpenAPI document for people: every operation, who may call it, its input and its answers. */
export default function ApiReferencePage() {
  const document = useResource(loadDocument);
  const doc = document.data;
  // An address with a fragment (#op-createLink) names a place that exists only once the document is in.
  useEffect(() => {
    if (doc && location.hash) window.document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  }, [doc]);
  return (
    <section class="reference">
      <h1 tabIndex={-1}>API reference</h1>
      <Busy busy={document.loading && !doc} text="Loading the API description…" />
      <ErrorMessage error={document.error} />
      {doc && (
        <>
          <p>
            {doc.info.title}, version {doc.info.version}. Base URL <code>{doc.servers?.[0]?.url ?? '/api/v1'}</code>. The same description as{' '}
            <a href="/api/v1/openapi.json">OpenAPI 3.1 (JSON)</a>, for tools; to send requests from the browser, <a href="/api/reference">Swagger UI</a>.
          </p>
          <Markdown text={doc.info.description} />
          <nav aria-labelledby="contents-heading">
            <h2 id="contents-heading">Contents</h2>
            <ul>
              {byTag(doc).map((tag) => (
                <li key={tag.name}>
                  <a href={`#tag-${tag.name}`}>{tag.name}</a>
                </li>
              ))}
              <li>
                <a href="#schemas">Schemas</a>
              </li>
            </ul>
          </nav>
          {byTag(doc).map((tag) => (
            <section key={tag.name} aria-labelledby={`tag-${tag.name}`}>
              <h2 id={`tag-${tag.name}`}>{tag.name}</h2>
              <Markdown text={tag.description} />
              {tag.entries.map((e) => (
                <OperationView key={`${e.method} ${e.path}`} document={doc} {...e} />
              ))}
            </section>
          ))}
          <section aria-labelledby="schemas">
            <h2 id="schemas">Schemas</h2>
            {Object.entries(doc.components?.schemas ?? {}).map(([name, schema]) => (
              <section key={name} class="operation" aria-labelledby={`schema-${name}`}>
                <h3 id={`schema-${name}`}>{name}</h3>
                <Markdown text={schema.description} />
                <SchemaView document={doc} schema={schema} />
              </section>
            ))}
          </section>
        </>
      )}
    </section>
  );
}
