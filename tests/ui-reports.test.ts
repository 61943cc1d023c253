import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// SPEC D4 (decision 079) in a real Chromium: the Reports page at 1280 and 360 px, axe-clean and
// never wider than the screen (the table scrolls in its own region); its filter form is a GET,
// so the report is a link; a count opens the list of exactly its tickets, and the list keeps the
// report's period while another filter changes.

const WAIT = 20_000;
const clock = testClock(Date.parse('2032-03-08T09:00:00.000Z'));
let s: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];
const made: number[] = [];

beforeAll(async () => {
  s = await startServer({}, { clock });
  browser = await launchBrowser();
  for (const subject of ['Printer jam', 'A very long subject that a narrow screen must wrap somewhere sensible']) {
    const r = await s.api('POST', '/tickets', { body: { queue_id: 1, subject } });
    expect(r.status, r.text).toBe(201);
    made.push(r.body.ticket.id);
    clock.set(clock.now() + 3_600_000);
  }
  // The second ticket answered an hour after it came in: the first-response chart's 1–4 h.
  const reply = await s.api('POST', `/tickets/${made[1]}/comment`, { body: { body: 'On it', internal: false } });
  expect(reply.status, reply.text).toBe(201);
  expect((await s.api('PATCH', `/tickets/${made[0]}`, { body: { status: 'resolved' } })).status).toBe(200);
  clock.set(Date.parse('2032-03-12T09:00:00.000Z'));
}, 120_000);
afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await s?.close();
});

async function admin(width: number): Promise<Page> {
  const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
  contexts.push(context);
  context.setDefaultTimeout(WAIT);
  await page.setViewportSize({ width, height: 800 });
  return page;
}

describe('the Reports page', () => {
  for (const width of [1280, 360]) {
    it(`shows the summary at ${width} px: axe-clean, nothing wider than the screen`, async () => {
      const page = await admin(width);
      await page.goto('/reports?from=2032-03-08&to=2032-03-15&group_by=queue');
      const table = page.getByRole('table', { name: /By queue/ });
      await table.waitFor();
      expect(await table.locator('tbody tr').first().innerText()).toContain('General');
      // The charts of the same period, each an image named by its title, with its data as a table.
      for (const name of ['Created and resolved per week', 'Time to first response', 'Created and resolved per agent'])
        await page.getByRole('img', { name }).waitFor();
      const buckets = page.locator('#chart-first-response').locator('xpath=ancestor::div[contains(@class,"chart")][1]');
      expect(await buckets.locator('table tbody tr', { hasText: '1–4 h' }).innerText()).toMatch(/\b1\b/);
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
      const axe = await axeCheck(page);
      expect(axe.serious, axe.message).toEqual([]);
      await page.screenshot({ path: `/tmp/h-report-${width}.png`, fullPage: true });
    });
  }

  it('the filter form is a link; a count opens exactly its tickets, and the list keeps the period', async () => {
    const page = await admin(1280);
    await page.goto('/reports?from=2032-03-08&to=2032-03-15');
    await page.getByLabel('Group by').selectOption('day');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.url()).toContain('group_by=day');
    await page.getByRole('table', { name: /By day/ }).waitFor();
    const created = page
      .getByRole('table', { name: /By day/ })
      .locator('tfoot td a')
      .first();
    expect(await created.innerText()).toBe('2');
    await created.click();
    await expect.poll(() => page.url()).toContain('created_from=');
    await expect.poll(() => page.locator('#ticket-list').innerText()).toContain('Printer jam');
    expect(await page.locator('.notice', { hasText: 'From a report' }).count()).toBe(1);
    // Another filter keeps the period (hidden fields of the form).
    await page.locator('#filters select[name="status"]').selectOption('resolved');
    await expect.poll(() => page.url()).toContain('status=resolved');
    expect(page.url()).toContain('created_from=');
    await expect.poll(() => page.locator('#ticket-list').innerText()).not.toContain('narrow screen');
  }, 60_000);
});
