import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CATALOG } from '../src/platform/errors.js';

/** docs/errors.md is written from the catalog, never by hand: `npm run docs:errors`. */
export const ERRORS_DOC_PATH = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

export function errorsDoc(): string {
  const rows = Object.entries(ERROR_CATALOG).map(([code, { status, when }]) => `| ${status} | \`${code}\` | ${when.replaceAll('|', '\\|')} |`);
  return [
    '# Error catalog',
    '',
    'Every error response has the body `{"error": "<value>"}` — exactly that one property — and a JSON',
    'content type. This page is generated from the catalog in `src/platform/errors.ts` by',
    '`npm run docs:errors`; a test fails while it differs from the catalog.',
    '',
    '| status | value | when |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(ERRORS_DOC_PATH, errorsDoc());
