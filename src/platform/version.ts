import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The service's version, package.json's: read from the file beside `src/` or `dist/` (and the test
 * bundle, which sits as deep), so that a build never reports a number its package no longer carries.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const VERSION: string = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
