/**
 * How long a link's analytics take to render in Chromium with 90 days of hourly data: the real server
 * and website, the stats answer replaced by a generated one (every hour of 90 days with visits, 40
 * countries, every breakdown). Measures from choosing "90 days" to the chart, its table and the map
 * drawn, five times; prints the median and the worst. `npm run bench:analytics-page`.
 */
import { performance } from 'node:perf_hooks';
import { admin, newPage, signIn, startWebsite } from '../test/web/website-server.js';

const COUNTRIES = ['DE', 'FR', 'US', 'GB', 'IN', 'BR', 'JP', 'ES', 'IT', 'NL', 'PL', 'SE', 'NO', 'FI', 'DK', 'AT', 'CH', 'BE', 'PT', 'IE'];

function stats(days: number) {
  const now = Date.now();
  const daily = Array.from({ length: days }, (_, i) => {
    const date = new Date(now - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    const hours = Array.from({ length: 24 }, (_, h) => 5 + ((h * 7 + i * 3) % 40));
    const total = hours.reduce((a, b) => a + b, 0);
    return { date, total, s: Math.floor(total * 0.4), q: total - Math.floor(total * 0.4), bots: 0, visitors: Math.floor(total * 0.8), hours };
  });
  const total = daily.reduce((a, d) => a + d.total, 0);
  return {
    from: now - days * 86_400_000,
    to: now,
    refreshedAt: now,
    total,
    daily,
    countries: COUNTRIES.map((country, i) => ({ country, count: Math.floor(total / (i + 2)) })),
    devices: [
      { device: 'mobile', count: total * 0.7 },
      { device: 'desktop', count: total * 0.3 },
      { browser: 'Chrome', count: total },
      { os: 'iOS', count: total },
    ],
    referrers: [{ referrer: 'direct', count: total }],
    gaps: [{ from: now - 10 * 86_400_000, to: now - 9.5 * 86_400_000, reason: 'recording_unavailable' }],
  };
}

const world = await startWebsite('sqlite');
try {
  const account = await admin(world, 'accounts create', { email: 'bench@example.com', password: 'copper-lantern-meadow-4412' });
  const { key } = await admin(world, 'keys create', { account: account.id, scopes: 'links:write' });
  const made = await fetch(`${world.server.baseUrl}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ target: 'https://example.com/bench', title: 'Bench' }),
  });
  const link = (await made.json()) as { id: string };
  const { context, page } = await newPage(world, { width: 1280 });
  await signIn(page, 'bench@example.com', 'copper-lantern-meadow-4412');
  await page.route('**/api/v1/links/*/stats?*', (route) => {
    const days = Number(new URL(route.request().url()).searchParams.get('days'));
    return route.fulfill({ json: stats(days) });
  });
  const times: number[] = [];
  for (let run = 0; run < 6; run++) {
    await page.goto(`/app/links/${link.id}`);
    await page.locator('.world-map svg').waitFor();
    await page.getByRole('radio', { name: '30 days' }).check();
    const start = performance.now();
    await page.getByRole('radio', { name: '90 days' }).check();
    await page.waitForFunction(() => {
      const rows = document.querySelectorAll('#time-visits tbody tr').length;
      return rows === 90 && document.querySelector('.chart-canvas canvas') !== null && document.querySelector('.world-map svg') !== null;
    });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
    if (run > 0) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  console.log(
    `90 days of hourly data rendered (chart, table, map) in ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms median, ${times.at(-1)!.toFixed(0)} ms worst, over ${times.length} runs (target under 300 ms)`,
  );
  await context.close();
} finally {
  await world.close();
}
