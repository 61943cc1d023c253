import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, SCREENSHOTS, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// SPEC D5: /docs/api in a real Chromium, wide and narrow: readable, usable by keyboard, nothing
// serious for axe, and not one request to anywhere but the server itself.

const LONG = 120_000;
let s: TestServer;
let browser: Browser;

beforeAll(async () => {
  s = await startServer();
  browser = await launchBrowser();
}, LONG);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe('the API reference in a browser', () => {
  for (const width of [1280, 360]) {
    it(
      `reads at ${width} px: every operation, no sideways scrolling, nothing serious for axe, no request leaving the machine`,
      async () => {
        const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
        const elsewhere: string[] = [];
        const own: string[] = [];
        const problems: string[] = [];
        context.on('request', (r) => (r.url().startsWith(`${s.url}/`) ? own : elsewhere).push(r.url()));
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(m.text());
        });
        page.on('pageerror', (e) => problems.push(String(e)));
        await page.setViewportSize({ width, height: 800 });
        const res = await page.goto('/docs/api');
        expect(res?.status()).toBe(200);
        await page.getByRole('heading', { level: 1, name: 'hxdesk API' }).waitFor();
        expect(await page.locator('section.api-op[id^="op-"]').count()).toBeGreaterThan(90);
        await page.getByRole('link', { name: '/openapi.json', exact: true }).first().waitFor();
        // Nothing wider than the window: the page scrolls down only.
        expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          width,
        );
        const axe = await axeCheck(page);
        expect(axe.serious, axe.message).toEqual([]);
        // The first screen only: the whole page is some hundred screens long.
        fs.mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SCREENSHOTS, `api-docs-${width}.png`) });
        // The whole page and what it links to (the document itself) came from this server.
        const json = await page.goto('/openapi.json');
        expect(json?.status()).toBe(200);
        expect(elsewhere).toEqual([]);
        expect(own).toEqual(
          expect.arrayContaining([`${s.url}/docs/api`, `${s.url}/static/app.css`, `${s.url}/openapi.json`]),
        );
        expect(problems).toEqual([]);
        await context.close();
      },
      LONG,
    );
  }

  it(
    'is used by keyboard: the contents lead to an operation, its schemas link to their definitions',
    async () => {
      const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
      await page.goto('/docs/api');
      // The first Tab stop skips the top bar; the contents come first in the page.
      await page.keyboard.press('Tab');
      await expect
        .poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.textContent))
        .toBe('Skip to content');
      const link = page
        .getByRole('navigation', { name: 'Contents' })
        .getByRole('link', { name: /PATCH \/tickets\/\{id\}/ });
      await link.focus();
      await page.keyboard.press('Enter');
      await page.waitForURL('**/docs/api#op-patch-tickets-id');
      const op = page.locator('#op-patch-tickets-id');
      await expect
        .poll(() =>
          op.evaluate((el) => {
            const r = el.getBoundingClientRect();
            return r.top >= 0 && r.top < (globalThis as any).innerHeight;
          }),
        )
        .toBe(true);
      // The answer names its schema; following it lands on the schema's fields.
      await op.getByRole('link', { name: 'TicketChange' }).first().focus();
      await page.keyboard.press('Enter');
      await page.waitForURL('**/docs/api#schema-ticketchange');
      await page.locator('#schema-ticketchange').getByRole('link', { name: 'Ticket', exact: true }).first().waitFor();
      await context.close();
    },
    LONG,
  );
});
