import fs from 'node:fs';

/**
 * The package's version, read once from package.json (two folders up from src/platform and from
 * dist/platform alike): Safe Browsing is told which client asks.
 */
export const VERSION: string = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
