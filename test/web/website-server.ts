import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { commands } from '../../src/cli/commands.js';
import { loadConfig } from '../../src/platform/config.js';
import { openDatabase } from '../../src/platform/database/database.js';
import { freshDatabaseUrl, type DatabaseKind } from '../helpers/databases.js';
import { TEST_PASSWORD_HASHING, startServer, type ServerProcess } from '../helpers/processes.js';
import { ensureWebsiteBuilt, launchBrowser } from './browser.js';

/** The real server in its own process, a fresh database, a mail folder, and a browser. */
export interface WebsiteWorld {
  server: ServerProcess;
  databaseUrl: string;
  mailDir: string;
  shots: string;
  browser: Browser;
  close(): Promise<void>;
}

/** `env` adds or overrides server variables (a small allowance, to see what happens past it). */
export async function startWebsite(kind: DatabaseKind, env: Record<string, string> = {}): Promise<WebsiteWorld> {
  ensureWebsiteBuilt();
  const database = await freshDatabaseUrl(kind);
  const mailDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-mail-'));
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlinks-shots-'));
  // The API's and the sign-in's per-network limits are raised: every request comes from 127.0.0.1.
  const server = await startServer({
    DATABASE_URL: database.url,
    MAIL_DIR: mailDir,
    RATE_LIMIT_PER_IP: '1000000',
    RATE_LIMIT_PER_ACCOUNT: '1000000',
    AUTH_RATE_LIMIT_PER_IP: '1000',
    AUTH_RATE_LIMIT_PER_EMAIL: '1000',
    CREDITS_HELP: 'Write to billing@example.com to buy credits.',
    ...env,
  });
  const browser = await launchBrowser();
  return {
    server,
    databaseUrl: database.url,
    mailDir,
    shots,
    browser,
    async close() {
      await browser.close();
      await server.stop();
      await database.drop();
      fs.rmSync(mailDir, { recursive: true, force: true });
      fs.rmSync(shots, { recursive: true, force: true });
    },
  };
}

/**
 * An operator's command (README, "Admin command line") on the server's database, run in this process
 * with the code the CLI runs: the suites here test the website, and the CLI's own suite starts it as a
 * process of its own.
 */
export async function admin(world: WebsiteWorld, name: string, values: Record<string, string>): Promise<any> {
  const database = await openDatabase(world.databaseUrl);
  try {
    return await commands[name]!.run(values, { database, config: loadConfig({ DATABASE_URL: world.databaseUrl, ...TEST_PASSWORD_HASHING }), now: Date.now() });
  } finally {
    await database.close();
  }
}

export async function newPage(world: WebsiteWorld, options: { width?: number } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await world.browser.newContext({ baseURL: world.server.baseUrl, viewport: { width: options.width ?? 1200, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return { context, page };
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/app/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Signed in, the header holds the site menu; on a phone "Sign out" sits in it, folded away.
  await page.locator('#site-menu').waitFor({ state: 'attached' });
}

/** A link as the API answers its creation (the fields the suites use). */
export interface MadeLink {
  id: string;
  slug: string;
  shortUrl: string;
  qrUrl: string;
}

/** A link made through the API with an account's key, as a program makes it. */
export async function createLinkWithKey(world: WebsiteWorld, key: string, body: Record<string, unknown>): Promise<MadeLink> {
  const made = await fetch(`${world.server.baseUrl}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify(body),
  });
  if (made.status !== 200) throw new Error(`link creation answered ${made.status}: ${await made.text()}`);
  return (await made.json()) as MadeLink;
}

/** The API as the page's own session sees it (same origin, its cookie). */
export async function fetchInPage(page: Page, path: string): Promise<{ status: number; body: any }> {
  return page.evaluate(async (url) => {
    const response = await fetch(url, { credentials: 'same-origin' });
    return { status: response.status, body: await response.json().catch(() => null) };
  }, path);
}
