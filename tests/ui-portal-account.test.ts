// SPEC D6, docs/decisions/050, in Debian's Chromium: a customer with a password stays in the
// portal. At 1280 and 360 px, keyboard only: their list (paged), a new request with a file, their
// settings; axe-core finds nothing serious, nothing is wider than the screen; a staff address
// typed in brings them back to the portal.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, screenshot } from './helpers/browser.js';
import { startServer, type TestServer } from './helpers/server.js';

const PASSWORD = 'customer-password-123';
let s: TestServer;
let browser: Browser;

beforeAll(async () => {
  s = await startServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

let seq = 0;
async function customerWithRequests(n: number) {
  const email = `ui${++seq}@customer.example`;
  const made = await s.api('POST', '/users', {
    body: { email, name: `Uma Customer ${seq}`, role: 'requester', password: PASSWORD },
  });
  for (let i = 0; i < n; i++)
    await s.api('POST', '/tickets', {
      body: { queue_id: 1, subject: `Earlier matter ${i + 1}`, requesters: [made.body.id] },
    });
  return email;
}

/** Signs in with the keyboard only. */
async function signInByKeyboard(page: Page, email: string) {
  await page.goto('/login');
  await page.getByLabel('Email').focus();
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.pathname === '/portal');
}

/** Tabs until the focused element matches, as a keyboard user would. */
async function tabTo(page: Page, selector: string, max = 40) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((sel) => (globalThis as any).document.activeElement?.matches(sel) ?? false, selector))
      return;
  }
  throw new Error(`never reached ${selector} with Tab`);
}

async function clean(page: Page, what: string) {
  const axe = await axeCheck(page);
  expect(axe.serious, `${what}: ${axe.message}`).toEqual([]);
  const wide = await page.evaluate(
    () => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth,
  );
  expect(wide, `${what} is wider than the screen`).toBeLessThanOrEqual(0);
}

describe.each([1280, 360])('the portal at %i px', (width) => {
  it('list, new request with a file, settings: by keyboard, axe clean; staff pages lead back to the portal', async () => {
    const email = await customerWithRequests(27);
    const context = await browser.newContext({ baseURL: s.url, viewport: { width, height: 800 } });
    const page = await context.newPage();
    await signInByKeyboard(page, email);

    // The list: newest first, 25 a page, the older ones one link away.
    const items = page.locator('.portal-tickets li');
    await expect.poll(() => items.count()).toBe(25);
    expect(await items.first().innerText()).toContain('Earlier matter 27');
    await clean(page, 'the list');
    await screenshot(page, `portal-list-${width}`);
    await tabTo(page, 'a[rel="next"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(/offset=25/);
    expect(await items.count()).toBe(2);

    // A staff address typed in: back in the portal.
    await page.goto('/tickets');
    expect(new URL(page.url()).pathname).toBe('/portal');
    await page.goto('/settings');
    expect(new URL(page.url()).pathname).toBe('/portal/settings');

    // A new request, by keyboard, with a file.
    await page.goto('/portal');
    await tabTo(page, 'a.button[href="/portal/new"]');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/portal/new');
    await clean(page, 'the new-request page');
    await screenshot(page, `portal-new-${width}`);
    await tabTo(page, '#new-subject');
    await page.keyboard.type('Wifi drops every hour');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Since Monday, on every floor.');
    await page.locator('#new-files').setInputFiles({
      name: 'log.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('ping timeout'),
    });
    await tabTo(page, '#portal-new-request button[type="submit"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/portal\/tickets\/\d+$/);
    expect(await page.locator('h1').innerText()).toBe('Wifi drops every hour');
    expect(await page.locator('#portal-history').innerText()).toContain('log.txt');

    // Settings: a wrong current password is said once, next to its field; a name is saved.
    await page.goto('/portal/settings');
    await clean(page, 'the settings page');
    await tabTo(page, '#settings-current');
    await page.keyboard.type('not-my-password');
    await page.keyboard.press('Tab');
    await page.keyboard.type('a-new-password-456');
    await page.keyboard.press('Tab');
    await page.keyboard.type('a-new-password-456');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#settings-current-error').innerText())
      .toBe('That is not your current password');
    await clean(page, 'the settings page with an error');
    await screenshot(page, `portal-settings-error-${width}`);
    await tabTo(page, '#settings-name');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Uma Renamed');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/portal/settings?saved');
    expect(await page.locator('p.notice[role="status"]').innerText()).toBe('Saved.');
    expect(await page.locator('#settings-name').inputValue()).toBe('Uma Renamed');
    await screenshot(page, `portal-settings-${width}`);
    await context.close();
  });
});
