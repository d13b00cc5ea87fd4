import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Both src/web/ (tsx) and dist/web/ (built) sit two levels below the package root. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WEBSITE_DIR = path.join(ROOT, 'dist/website');

/** No inline script or style, nothing from another origin, never framed: the website's whole policy. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * Swagger UI's page: its scripts and styles are files of the package, and React sets styles through the
 * DOM, which the policy allows. The one <style> element its bundle writes is allowed by its hash (the
 * browser tests fail on any refusal, so a new Swagger UI that writes another shows at once).
 */
const REFERENCE_CSP = CONTENT_SECURITY_POLICY.replace("style-src 'self'", "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='");

export interface WebOptions {
  /** The built website (`npm run build:web`); tests may point elsewhere. */
  dir?: string;
}

/**
 * The website, served by the API's own process: the single-page app's HTML shell at `/`, `/report` and under
 * `/app/`, its hashed assets under `/assets/`, and the API reference (Swagger UI from its package) at
 * `/api/reference`. Registered outside `/api/v1`: none of the API's hooks (rate limits, load shedding,
 * authentication) run here, and the redirect fast path answers `/s/` and `/q/` before Fastify.
 */
export async function webPlugin(app: FastifyInstance, options: WebOptions): Promise<void> {
  const dir = options.dir ?? WEBSITE_DIR;
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
  });
  const sendShell = async (_request: unknown, reply: FastifyReply) => {
    const shell = await readShell(dir, app);
    return reply
      .code(shell.status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-frame-options', 'DENY')
      .send(shell.html);
  };
  for (const url of ['/', '/app', '/app/*', '/report']) app.get(url, { schema: { hide: true } }, sendShell);
  if (fs.existsSync(path.join(dir, 'assets'))) {
    await app.register(fastifyStatic, {
      root: path.join(dir, 'assets'),
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      // Every file name carries a hash of its content: a changed file is a new URL.
      cacheControl: true,
      maxAge: '365d',
      immutable: true,
      // .br and .gz files written beside each asset by the build (web/vite.config.ts).
      preCompressed: true,
      schemaHide: true,
    });
  }
  await app.register(swaggerUi, {
    routePrefix: '/api/reference',
    // BaseLayout: without Swagger UI's top bar (an unlabelled URL field to load any other document).
    uiConfig: { validatorUrl: null, deepLinking: true, defaultModelsExpandDepth: 0, layout: 'BaseLayout' },
    theme: { title: 'API reference · Short links' },
    staticCSP: REFERENCE_CSP,
    transformSpecificationClone: true,
  });
}

/**
 * The shell is read on each request (it is small and off the redirect path), so a new build is served
 * at once: a shell kept from before it would name assets the build has removed.
 */
async function readShell(dir: string, app: FastifyInstance): Promise<{ status: number; html: string }> {
  try {
    return { status: 200, html: await fs.promises.readFile(path.join(dir, 'index.html'), 'utf8') };
  } catch {
    app.log.warn({ dir }, 'the website is not built (npm run build:web): its pages answer 503');
    return { status: 503, html: NOT_BUILT };
  }
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Website not built</title></head>
<body><main><h1>The website is not built</h1><p>Run <code>npm run build</code>, then start the server again. The API at /api/v1 works meanwhile.</p></main></body></html>`;
