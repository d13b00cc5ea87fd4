import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, test } from 'node:test';
import semver from 'semver';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Every file under `dir` (relative to the project), recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** The packages the built server and CLI load: import, import(), require and require.resolve of a bare name. */
function packagesLoadedByTheBuild(): Set<string> {
  const names = new Set<string>();
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\.resolve\s*\(\s*)['"]([^'"]+)['"]/g;
  for (const file of filesUnder('dist').filter((name) => name.endsWith('.js') && !name.startsWith('dist/website/'))) {
    for (const [, loaded] of fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(specifier)) {
      if (loaded!.startsWith('node:') || loaded!.startsWith('.')) continue;
      names.add(
        loaded!
          .split('/')
          .slice(0, loaded!.startsWith('@') ? 2 : 1)
          .join('/'),
      );
    }
  }
  return names;
}

describe('the package', () => {
  test('npm pack ships the build, the website, the migrations, the README and the deploy kit, and no tests, benchmarks, sources or screenshots', async () => {
    assert.ok(fs.existsSync(path.join(ROOT, 'dist/server.js')), 'dist/ is built (npm run build)');
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT });
    const files = new Set((JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path));
    const required = [
      'package.json',
      'README.md',
      'dist/server.js',
      'dist/cli/main.js',
      'dist/platform/database/migrations/0001-baseline.js',
      'dist/website/index.html',
      'deploy/nginx/shortlinks.conf',
      'deploy/systemd/shortlinks@.service',
      'deploy/shortlinks.env',
      'docs/decisions.md',
    ];
    for (const file of required) assert.ok(files.has(file), `${file} is shipped`);
    const built = filesUnder('dist').filter((file) => !file.endsWith('.map'));
    assert.deepEqual(
      built.filter((file) => !files.has(file)),
      [],
      'every file of the build is shipped',
    );
    assert.ok(built.some((file) => /^dist\/website\/assets\/.+\.js$/.test(file)));
    const forbidden = /^(test|bench|web|src|scripts|node_modules|\.ci|data|docs\/screenshots)\/|\.map$|\.ts$|^tsconfig|^eslint/;
    assert.deepEqual(
      [...files].filter((file) => forbidden.test(file)),
      [],
    );
  });

  test('dependencies are exactly the packages the built service loads; everything else is a devDependency', () => {
    const loaded = packagesLoadedByTheBuild();
    // The QR render pool registers tsx in its workers only when it runs from the TypeScript sources
    // (tests, benches); built, that branch is never taken.
    loaded.delete('tsx');
    const declared = Object.keys(pkg.dependencies);
    assert.deepEqual([...loaded].filter((name) => !declared.includes(name)).sort(), [], 'loaded but not in dependencies');
    assert.deepEqual(declared.filter((name) => !loaded.has(name)).sort(), [], 'in dependencies but never loaded');
  });

  test('every locked package supports every Node version the package admits, Node 20 and 22 among them', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[]; os?: string[] }>;
    };
    const admitted = pkg.engines.node;
    for (const line of ['20', '22']) assert.ok(semver.intersects(admitted, `${line}.x`), `engines admits Node ${line}`);
    // Every release line a range can name, checked one by one: semver.subset cannot compare a range
    // with a union of narrower ones (">=24 <27" against "24.x || 25.x || 26.x").
    const versions = Array.from({ length: 41 * 41 }, (_, i) => `${Math.floor(i / 41)}.${i % 41}.0`).filter((version) => semver.satisfies(version, admitted));
    const unsupported = Object.entries(lock.packages)
      .filter(([where, entry]) => where !== '' && !Array.isArray(entry.engines) && entry.engines?.node !== undefined)
      // fsevents is macOS's, never installed here.
      .filter(([, entry]) => entry.os?.includes('darwin') !== true)
      .map(([where, entry]) => ({ name: `${where.replace(/^.*node_modules\//, '')}@${entry.version}`, wants: (entry.engines as { node: string }).node }))
      .filter(({ wants }) => versions.some((version) => !semver.satisfies(version, wants)))
      .map(({ name, wants }) => `${name} wants ${wants}`);
    assert.deepEqual(unsupported, [], `engines.node is ${admitted}`);
  });
});
