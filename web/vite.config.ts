import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import preact from '@preact/preset-vite';
import { defineConfig, type Plugin } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The website: one HTML shell, one entry, a chunk per page loaded on demand. The manifest lets
 * scripts/bundle-size.ts measure each page's initial JavaScript. No inline script is emitted, so the
 * shell runs under a Content-Security-Policy without 'unsafe-inline' (src/web/web-plugin.ts).
 */
export default defineConfig({
  root: here,
  base: '/',
  plugins: [preact({ prerender: { enabled: false } }), precompress()],
  build: {
    outDir: fileURLToPath(new URL('../dist/website', import.meta.url)),
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    // Keeps every asset a file of its own: a data: URL in a stylesheet would need a wider CSP.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});

/** Writes .br and .gz beside each asset once at build, for @fastify/static's preCompressed serving. */
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const file = path.join(options.dir!, name);
        const content = fs.readFileSync(file);
        fs.writeFileSync(`${file}.br`, brotliCompressSync(content));
        fs.writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
      }
    },
  };
}
