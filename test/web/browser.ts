import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROMIUM_PATH = '/usr/bin/chromium';
const AXE_PATH = path.join(ROOT, 'node_modules/axe-core/axe.min.js');

/** Debian's Chromium, headless, with none of its own network traffic (this machine has no network). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Why the browser suites cannot run here, or undefined. In CI they must run. */
function chromiumUnavailable(): string | undefined {
  if (fs.existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `${CHROMIUM_PATH} is absent (apt-get install -y chromium)`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI requires the browser suites`);
  console.log(`skipping browser suites: ${reason}`);
  return reason;
}

export const browserSkip = chromiumUnavailable();

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

/**
 * The website the tests drive is the one built from web/: built here when there is no build or web/ has
 * changed since (`npm test` builds it first, so this is for running one file).
 */
export function ensureWebsiteBuilt(): void {
  const manifest = path.join(ROOT, 'dist/website/.vite/manifest.json');
  const built = fs.existsSync(manifest) ? fs.statSync(manifest).mtimeMs : 0;
  if (newestChange(path.join(ROOT, 'web')) <= built) return;
  execFileSync('npm', ['run', '--silent', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
}

function newestChange(dir: string): number {
  return fs.readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const full = path.join(dir, entry.name);
    return Math.max(newest, entry.isDirectory() ? newestChange(full) : fs.statSync(full).mtimeMs);
  }, 0);
}

/**
 * axe-core's violations on the page as it is now, as readable lines (empty when none). The script goes
 * in through the DevTools protocol, which the page's Content-Security-Policy does not govern, so the
 * page is tested under its real policy.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(fs.readFileSync(AXE_PATH, 'utf8'));
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.map((v) => `${v.id}: ${v.help} (${v.nodes.join(', ')})`);
}

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe in light and in dark mode; returns every violation, labelled with the page and the mode. */
export async function axeInBothModes(page: Page, label: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    found.push(...(await axeViolations(page)).map((v) => `${label} (${colorScheme}): ${v}`));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/** Content-Security-Policy refusals the page reports on its console, collected for an assertion. */
export function collectCspViolations(page: Page): string[] {
  const found: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) found.push(message.text());
  });
  return found;
}

/**
 * Screenshots go to a temporary folder, and to docs/screenshots/ for the README with UPDATE_SCREENSHOTS=1.
 * The whole page, or with `fullPage: false` what the window shows (the top of a long page).
 */
export async function screenshot(page: Page, name: string, folder: string, options: { fullPage?: boolean } = {}): Promise<void> {
  const file = path.join(folder, `${name}.png`);
  await page.screenshot({ path: file, fullPage: options.fullPage ?? true });
  if (process.env.UPDATE_SCREENSHOTS === '1') fs.copyFileSync(file, path.join(ROOT, 'docs/screenshots', `${name}.png`));
}

/** Clicks a button that downloads a file, and returns the file's suggested name and bytes. */
export async function download(page: Page, button: Locator): Promise<{ name: string; bytes: Buffer }> {
  const [file] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return { name: file.suggestedFilename(), bytes: fs.readFileSync(await file.path()) };
}

/** A section of the page for the README: as screenshot(), but only that section. */
export async function sectionShot(section: Locator, name: string, folder: string): Promise<void> {
  const file = path.join(folder, `${name}.png`);
  const box = await section.evaluate((element) => {
    const r = element.getBoundingClientRect();
    return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
  });
  const margin = 16;
  const clip = { x: Math.max(0, box.x - margin), y: Math.max(0, box.y - margin), width: box.width + 2 * margin, height: box.height + 2 * margin };
  await section.page().screenshot({ path: file, fullPage: true, clip });
  if (process.env.UPDATE_SCREENSHOTS === '1') fs.copyFileSync(file, path.join(ROOT, 'docs/screenshots', `${name}.png`));
}
