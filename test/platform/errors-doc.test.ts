import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERRORS_DOC_PATH, errorsDoc } from '../../scripts/errors-doc.js';
import { ERROR_CATALOG } from '../../src/platform/errors.js';

test('docs/errors.md is the page generated from the error catalog (npm run docs:errors)', () => {
  assert.equal(readFileSync(ERRORS_DOC_PATH, 'utf8'), errorsDoc());
});

test('the generated page has one row per error value, with its status', () => {
  const page = errorsDoc();
  for (const [code, { status }] of Object.entries(ERROR_CATALOG)) {
    assert.ok(page.includes(`| ${status} | \`${code}\` |`), `${code} with ${status}`);
  }
});
