import { Markdown } from './markdown.js';
import type { OpenApiDocument, Operation } from './openapi.js';
import { SchemaView, typeLabel } from './schema-view.js';

/** Who may call, in words, from the operation's security requirements. */
function callers(operation: Operation): string {
  const ways = (operation.security ?? []).map((requirement) => {
    const [scheme, scopes] = Object.entries(requirement)[0] ?? [];
    if (scheme === undefined) return 'no credentials';
    if (scheme === 'apiKey') return scopes && scopes.length > 0 ? `an API key with ${scopes.join(' and ')}` : 'an API key';
    if (scheme === 'session') return 'the website’s session';
    if (scheme === 'trialToken') return 'the link’s trial token';
    return scheme;
  });
  return ways.length === 0 ? 'anyone' : ways.join(', or ');
}

export const operationAnchor = (method: string, path: string, operation: Operation): string =>
  `op-${operation.operationId ?? `${method}-${path.replace(/[^A-Za-z0-9]+/g, '-')}`}`;

export function OperationView({ document, method, path, operation }: { document: OpenApiDocument; method: string; path: string; operation: Operation }) {
  const id = operationAnchor(method, path, operation);
  const body = operation.requestBody?.content?.['application/json']?.schema;
  return (
    <section class="operation" aria-labelledby={id}>
      <h3 id={id}>
        <span class="method">{method.toUpperCase()}</span> <code>{path}</code>
      </h3>
      {operation.summary && <p class="summary">{operation.summary}</p>}
      <p>
        <strong>Who may call:</strong> {callers(operation)}.{operation['x-website-only'] && <> Website only: programs leave it out.</>}
      </p>
      <Markdown text={operation.description} />
      <details>
        <summary>Parameters, body and answers</summary>
        {(operation.parameters ?? []).length > 0 && (
          <>
            <h4>Parameters</h4>
            <ul class="schema">
              {operation.parameters!.map((parameter) => (
                <li key={`${parameter.in}-${parameter.name}`}>
                  <code>{parameter.name}</code>{' '}
                  <span class="type">
                    in {parameter.in}, {parameter.schema ? typeLabel(parameter.schema) : 'string'}
                  </span>
                  {parameter.required && <span class="required"> required</span>}
                  <Markdown text={parameter.description} />
                </li>
              ))}
            </ul>
          </>
        )}
        {body && (
          <>
            <h4>Request body (JSON){operation.requestBody?.required === false ? ', optional' : ''}</h4>
            <SchemaView document={document} schema={body} />
          </>
        )}
        <h4>Answers</h4>
        <dl class="answers">
          {Object.entries(operation.responses ?? {}).map(([status, response]) => {
            const schema = response.content?.['application/json']?.schema;
            return (
              <div key={status}>
                <dt>{status}</dt>
                <dd>
                  <Markdown text={response.description} />
                  {schema && status.startsWith('2') && <SchemaView document={document} schema={schema} />}
                </dd>
              </div>
            );
          })}
        </dl>
      </details>
    </section>
  );
}
