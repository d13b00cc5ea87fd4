import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { totpCode, totpStep } from '../../src/accounts/totp.js';
import { eachDatabase } from '../helpers/databases.js';
import { axeInBothModes, axeViolations, browserSkip, screenshot } from './browser.js';
import { mails } from '../helpers/accounts.js';
import { until } from '../helpers/load.js';
import { admin, newPage, signIn, startWebsite, type WebsiteWorld } from './website-server.js';

const PASSWORD = 'violet-tugboat-harmonica-1987';
const OPERATOR = 'operator@example.com';
const PERSON = 'grace@example.com';

eachDatabase('trust and safety on the website: previews, reports, the operator console, two-factor sign-in', (kind) => {
  let world: WebsiteWorld;
  let context: BrowserContext;
  let page: Page;
  let key: string;

  before(async () => {
    if (browserSkip) return;
    world = await startWebsite(kind);
    await admin(world, 'accounts create', { email: OPERATOR, password: PASSWORD });
    await admin(world, 'accounts make-operator', { email: OPERATOR });
    const person = await admin(world, 'accounts create', { email: PERSON, password: PASSWORD });
    key = (await admin(world, 'keys create', { account: person.id, scopes: 'links:read,links:write' })).key;
    ({ context, page } = await newPage(world));
  });
  after(async () => {
    await context?.close();
    await world?.close();
  });

  const createLink = async (target: string) => {
    const res = await fetch(`${world.server.baseUrl}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ target, title: 'Spring sale' }),
    });
    return (await res.json()) as { id: string; slug: string; shortUrl: string };
  };
  const status = async (slug: string) => (await fetch(`${world.server.baseUrl}/s/${slug}`, { redirect: 'manual' })).status;

  test(
    'a preview shows where a link goes without redirecting, and "Report this link" sends a report the operator is mailed',
    { skip: browserSkip },
    async () => {
      const link = await createLink('https://example.com/win-a-prize');
      await page.goto(`/s/${link.slug}+`);
      await page.getByText('https://example.com/win-a-prize').waitFor();
      assert.match(page.url(), new RegExp(`/s/${link.slug}\\+$`), 'no redirect');
      assert.deepEqual(await axeViolations(page), []);
      await page.getByRole('link', { name: 'Report this link' }).click();
      await page.waitForURL('**/report?url=*');
      assert.equal(await page.getByLabel('Short link').inputValue(), `http://localhost:${new URL(world.server.baseUrl).port}/s/${link.slug}`);
      await page.getByLabel('What is wrong').fill('It asks for my card number to claim a prize.');
      assert.deepEqual(await axeInBothModes(page, 'report form'), []);
      await page.getByRole('button', { name: 'Send report' }).click();
      await page.getByRole('heading', { name: 'Report sent' }).waitFor();
      await until('the operator is mailed', () => mails(world.mailDir).some((mail) => mail.to.includes(OPERATOR) && mail.text.includes(`/s/${link.slug}`)));
    },
  );

  test('someone who is not an operator finds no console', { skip: browserSkip }, async () => {
    await signIn(page, PERSON, PASSWORD);
    await page.goto('/app/admin');
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  test(
    'an operator suspends a reported link from the queue, finds links and accounts, grants credits, and sees it all in the audit log',
    { skip: browserSkip },
    async () => {
      const link = await createLink('https://example.com/second-prize');
      await fetch(`${world.server.baseUrl}/api/v1/reports`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: world.server.baseUrl },
        body: JSON.stringify({ url: link.shortUrl, reason: 'Another fake prize' }),
      });
      await signIn(page, OPERATOR, PASSWORD);
      await page.goto('/app/admin');
      await page.getByRole('heading', { name: 'Reports' }).waitFor();
      const row = page.getByRole('row', { name: new RegExp(link.slug) });
      await row.getByText('Another fake prize').waitFor();
      assert.deepEqual(await axeInBothModes(page, 'operator console'), []);
      await screenshot(page, 'operator-console', world.shots);
      await row.getByRole('button', { name: 'Suspend link' }).click();
      await row.waitFor({ state: 'detached' });
      assert.equal(await status(link.slug), 404);

      await page.getByLabel('Find link').fill(`${link.shortUrl}?from=report`);
      await page.getByRole('button', { name: 'Find' }).first().click();
      const facts = page.locator('#find-link-heading + form + .result');
      await facts.getByText(PERSON).waitFor();
      await facts.getByText('suspended', { exact: true }).waitFor();
      await facts.getByRole('button', { name: 'Restore link' }).click();
      await page.getByText('The link is restored.').waitFor();
      assert.equal(await status(link.slug), 302);

      await page.getByLabel('Find account').fill(PERSON.toUpperCase());
      await page.getByRole('button', { name: 'Find' }).nth(1).click();
      await page.getByLabel('Credits').fill('25');
      await page.getByRole('button', { name: 'Grant credits' }).click();
      await page.getByText('25 credits granted. The balance is 25.').waitFor();

      const audit = page.getByRole('table', { name: /Operator actions/ });
      for (const action of ['Suspended a link', 'Restored a link', 'Granted credits']) await audit.getByRole('rowheader', { name: action }).first().waitFor();
      assert.deepEqual(await axeInBothModes(page, 'operator console after actions'), []);
      await page.getByRole('button', { name: 'Sign out' }).click();
    },
  );

  test('two-factor sign-in: turned on with a code from the shown secret, then sign-in asks for a code after the password', { skip: browserSkip }, async () => {
    await signIn(page, PERSON, PASSWORD);
    await page.goto('/app/settings');
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const secret = (await page.locator('code.mono').innerText()).trim();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    await page.getByRole('img', { name: 'QR code of your two-factor key' }).waitFor();
    assert.deepEqual(await axeInBothModes(page, 'two-factor set-up'), []);
    await page.getByLabel('Code').fill(totpCode(secret, totpStep(Date.now())));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Two-factor sign-in is on. Keep these recovery codes').waitFor();
    await screenshot(page, 'two-factor', world.shots);
    await page.getByRole('button', { name: 'Sign out' }).click();

    await page.goto('/app/signin');
    await page.getByLabel('Email').fill(PERSON);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Code').waitFor();
    assert.deepEqual(await axeInBothModes(page, 'sign-in asking for a code'), []);
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That code is not right').waitFor();
    // The step after the one used to confirm: a code is good once.
    await page.getByLabel('Code').fill(totpCode(secret, totpStep(Date.now()) + 1));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });
});
