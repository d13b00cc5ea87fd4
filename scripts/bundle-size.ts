/**
 * The website's budget: the JavaScript a page needs before it can draw (the entry, the page's own chunk,
 * and every chunk either imports statically), gzipped, at most 100 KB per page. Read from Vite's
 * manifest of the last `npm run build:web`; exits non-zero when a page is over, or nothing was built.
 * Chunks a page loads later on demand (dynamic imports) are not counted: they are not initial.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const BUDGET_BYTES = 100 * 1024;

interface Chunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
type Manifest = Record<string, Chunk>;

const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/website');

/** A chunk and everything it imports statically, as manifest keys. */
function closure(manifest: Manifest, key: string, seen = new Set<string>()): Set<string> {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const imported of manifest[key]?.imports ?? []) closure(manifest, imported, seen);
  return seen;
}

export function measure(outDir = OUT): { page: string; bytes: number }[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(outDir, '.vite/manifest.json'), 'utf8')) as Manifest;
  const entries = Object.keys(manifest).filter((key) => manifest[key]!.isEntry);
  const gzipped = new Map<string, number>();
  const size = (key: string) => {
    const file = manifest[key]!.file;
    if (!file.endsWith('.js')) return 0;
    if (!gzipped.has(file)) gzipped.set(file, gzipSync(fs.readFileSync(path.join(outDir, file)), { level: 9 }).length);
    return gzipped.get(file)!;
  };
  return entries.flatMap((entry) => {
    const shell = closure(manifest, entry);
    // The pages are what the shell loads on demand (the router's page chunks); what a page loads on
    // demand in turn (the QR decoder, the PDF writer) is not a page and not initial.
    const pages = [...new Set([...shell].flatMap((key) => manifest[key]?.dynamicImports ?? []))];
    const targets = pages.length > 0 ? pages : [entry];
    return targets.map((page) => {
      const initial = new Set([...shell, ...closure(manifest, page)]);
      return { page: manifest[page]!.src ?? page, bytes: [...initial].reduce((sum, key) => sum + size(key), 0) };
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let results: { page: string; bytes: number }[];
  try {
    results = measure();
  } catch (error) {
    console.error(`bundle-size: no website build to measure (${(error as Error).message}); run npm run build:web`);
    process.exit(1);
  }
  const over = results.filter((r) => r.bytes > BUDGET_BYTES);
  for (const { page, bytes } of results) {
    console.log(`${(bytes / 1024).toFixed(1).padStart(7)} KB gzipped  ${page}${bytes > BUDGET_BYTES ? '  OVER BUDGET' : ''}`);
  }
  if (over.length > 0) {
    console.error(`bundle-size: ${over.length} page(s) over the ${BUDGET_BYTES / 1024} KB budget of initial JavaScript`);
    process.exit(1);
  }
  console.log(`bundle-size: every page within ${BUDGET_BYTES / 1024} KB of initial JavaScript (gzipped)`);
}
