import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = path.join(ROOT, 'src');

/** The programs the suites start in processes of their own: the server (`npm start`) and the admin CLI. */
const ENTRY_POINTS = { server: 'src/server.ts', cli: 'src/cli/main.ts' } as const;
export type EntryPoint = keyof typeof ENTRY_POINTS;

/** Bundles unused for this long belong to an earlier state of src/ and are removed. */
const STALE_MS = 60 * 60 * 1000;

/** tsx's own esbuild, the transform that `--import tsx` applies file by file. */
const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild') as typeof import('esbuild');

/** Every file of src/, its path and content: what a bundle is built from. */
function sourceDigest(): string {
  const hash = crypto.createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(`${path.relative(SRC, full)}\0`).update(fs.readFileSync(full));
    }
  };
  walk(SRC);
  return hash.digest('hex').slice(0, 16);
}

/**
 * The node arguments that run an entry point of src/ as it is now, in a process of its own.
 *
 * Started through `--import tsx`, such a process spends about a second of CPU routing each of its
 * several hundred modules through the loader hooks, and the suites start about a hundred of them. So
 * src/ is bundled once per state of its files instead (the same esbuild transform, the npm packages
 * left as imports), and every process of that state starts from the bundle. The bundle sits two levels
 * below the project root, as src/server.ts and dist/server.js do: the website plugin finds the built
 * website from its own module's place. Building into a folder of its own and renaming it into place
 * lets test files running side by side share a bundle without ever reading a half-written one.
 */
export function entryPointArgs(entry: EntryPoint): string[] {
  const dir = path.join(ROOT, 'node_modules', `.shortlinks-test-${sourceDigest()}`);
  try {
    // In use: not stale (STALE_MS).
    fs.utimesSync(dir, new Date(), new Date());
  } catch {
    build(dir);
  }
  return ['--enable-source-maps', path.join(dir, `${entry}.mjs`)];
}

function build(dir: string): void {
  const staging = `${dir}.${process.pid}.tmp`;
  esbuild.buildSync({
    entryPoints: ENTRY_POINTS,
    absWorkingDir: ROOT,
    outdir: staging,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'error',
  });
  try {
    fs.renameSync(staging, dir);
  } catch (error) {
    // Another test file has put the same bundle in place first.
    fs.rmSync(staging, { recursive: true, force: true });
    if (!fs.existsSync(dir)) throw error;
  }
  removeStaleBundles(dir);
}

function removeStaleBundles(keep: string): void {
  const parent = path.dirname(keep);
  for (const name of fs.readdirSync(parent)) {
    const full = path.join(parent, name);
    if (!name.startsWith('.shortlinks-test-') || full === keep) continue;
    if (Date.now() - fs.statSync(full).mtimeMs > STALE_MS) fs.rmSync(full, { recursive: true, force: true });
  }
}
