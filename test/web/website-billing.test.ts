import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { eachDatabase } from '../helpers/databases.js';
import { axeInBothModes, browserSkip, collectCspViolations, screenshot } from './browser.js';
import { admin, fetchInPage, newPage, signIn, startWebsite, type WebsiteWorld } from './website-server.js';

const EMAIL = 'grace@example.com';
const PASSWORD = 'copper-lantern-orchard-4412';

eachDatabase('a person on the website: usage and billing', (kind) => {
  let world: WebsiteWorld;
  let context: BrowserContext;
  let page: Page;
  let csp: string[];

  before(async () => {
    if (browserSkip) return;
    world = await startWebsite(kind);
    const account = await admin(world, 'accounts create', { email: EMAIL, password: PASSWORD });
    await admin(world, 'credits grant', { account: account.id, credits: '120' });
    ({ context, page } = await newPage(world));
    csp = collectCspViolations(page);
    await signIn(page, EMAIL, PASSWORD);
  });
  after(async () => {
    await context?.close();
    await world?.close();
  });

  test('the billing page shows the month’s allowances, the balance and how to get credits', { skip: browserSkip }, async () => {
    await page.getByRole('link', { name: 'Usage and billing' }).click();
    await page.getByRole('heading', { name: 'Capacity packs' }).waitFor();
    const text = await page.locator('main').innerText();
    assert.match(text, /Free links\s+0 of 25 used, 25 left/);
    assert.match(text, /120 available/);
    assert.match(text, /Write to billing@example\.com to buy credits\./);
    assert.match(text, /Credits added by the operator\s+\+120/);
  });

  test('a double click on the purchase confirmation buys one capacity pack', { skip: browserSkip }, async () => {
    await page.getByRole('button', { name: 'Buy capacity pack' }).click();
    const dialog = page.getByRole('dialog', { name: 'Buy a capacity pack?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Confirm purchase' }).dblclick();
    await page.getByText(/Capacity pack bought/).waitFor();
    await page.getByRole('button', { name: 'Refund' }).waitFor();
    const { body } = await fetchInPage(page, '/api/v1/account/packs');
    assert.equal(body.packs.length, 1);
    assert.match(await page.locator('main').innerText(), /70 available/);
    assert.deepEqual(await axeInBothModes(page, 'billing with a pack'), []);
    await screenshot(page, 'billing', world.shots);
  });

  test('refunding the unused pack returns its credits and marks it refunded', { skip: browserSkip }, async () => {
    await page.getByRole('button', { name: 'Refund' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this capacity pack?' });
    await dialog.getByRole('button', { name: 'Refund pack' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('cell', { name: 'Refunded', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Refund' }).count(), 0);
    assert.match(await page.locator('main').innerText(), /120 available/);
    const { body } = await fetchInPage(page, '/api/v1/account/credits');
    assert.deepEqual(
      body.history.map((entry: { reason: string; credits: number }) => [entry.reason, entry.credits]),
      [
        ['refund', 50],
        ['pack', -50],
        ['grant', 120],
      ],
    );
  });

  test('a purchase the balance cannot pay is refused in plain words and buys nothing', { skip: browserSkip }, async () => {
    for (let i = 0; i < 2; i++) {
      await page.getByRole('button', { name: 'Buy capacity pack' }).click();
      const dialog = page.getByRole('dialog', { name: 'Buy a capacity pack?' });
      await dialog.getByRole('button', { name: 'Confirm purchase' }).click();
      await page.getByText(/Capacity pack bought/).waitFor();
    }
    await page.getByRole('button', { name: 'Buy capacity pack' }).click();
    const dialog = page.getByRole('dialog', { name: 'Buy a capacity pack?' });
    await dialog.getByRole('button', { name: 'Confirm purchase' }).click();
    await dialog
      .getByRole('alert')
      .getByText(/balance is too small for a capacity pack/)
      .waitFor();
    await page.keyboard.press('Escape');
    assert.equal((await fetchInPage(page, '/api/v1/account/packs')).body.packs.filter((p: { status: string }) => p.status === 'active').length, 2);
    assert.deepEqual(csp, []);
  });
});
