import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, signedIn } from './helpers/browser.js';
import { ticketOf } from './helpers/reads.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// SPEC D2 (decision 072) in a real Chromium: the shipped "Close idle tickets" scrip's page shows
// the tickets it would close now, at 1280 and 360 px, axe-clean; an admin enables it with the
// keyboard only, and the ticket it listed is resolved.

const WAIT = 20_000;
const START = Date.parse('2026-11-02T09:00:00.000Z');
const HOUR = 3_600_000;
const clock = testClock(START);

let s: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];
let scripId: number;
let idle: number;
let quiet: number;

beforeAll(async () => {
  s = await startServer({}, { clock });
  browser = await launchBrowser();
  const customer = await s.user('requester');
  const make = async (subject: string) => {
    const r = await s.api('POST', '/tickets', { token: customer.token, body: { queue_id: 1, subject } });
    expect(r.status, r.text).toBe(201);
    const id = r.body.ticket.id as number;
    expect((await s.api('PATCH', `/tickets/${id}`, { body: { status: 'stalled' } })).status).toBe(200);
    return id;
  };
  idle = await make('Waiting on the customer since Monday');
  clock.set(START + 20 * HOUR);
  quiet = await make('Stalled later, not idle long enough');
  clock.set(START + 41 * HOUR);
  scripId = (await s.api('GET', '/scrips')).body.scrips.find((x: { key: string }) => x.key === 'close_idle_tickets').id;
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

describe('the preview of an idle scrip', () => {
  for (const width of [1280, 360]) {
    it(`lists what it would close now, on its page at ${width} px (axe-clean, nothing wider than the screen)`, async () => {
      const page = await admin(width);
      await page.goto(`/scrips/${scripId}`);
      const card = page.getByRole('region', { name: 'Preview' });
      await card.waitFor();
      await expect.poll(() => card.innerText()).toContain('1 ticket this scrip would fire on if it were enabled now');
      const rows = card.locator('tbody tr');
      expect(await rows.count()).toBe(1);
      expect(await rows.first().innerText()).toContain(`#${idle} Waiting on the customer since Monday`);
      expect(await card.innerText()).not.toContain('Stalled later');
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
      const axe = await axeCheck(page);
      expect(axe.serious, axe.message).toEqual([]);
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `/tmp/h-idle-preview-${width}.png`, fullPage: true });
    });
  }

  it('the admin enables it with the keyboard only; the listed ticket is closed, the other stays', async () => {
    const page = await admin(1280);
    await page.goto(`/scrips/${scripId}`);
    await page.getByRole('checkbox', { name: 'Enabled' }).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await expect.poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Save');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ticketOf(s, idle)).status, { timeout: WAIT }).toBe('resolved');
    expect((await ticketOf(s, quiet)).status).toBe('stalled');
    await page.goto(`/scrips/${scripId}`);
    const card = page.getByRole('region', { name: 'Preview' });
    await expect
      .poll(() => card.innerText())
      .toContain('No ticket is idle long enough: this scrip has nothing to fire on now.');
    // The ticket page tells why it was closed.
    await page.goto(`/tickets/${idle}`);
    await expect.poll(() => page.locator('#history').innerText()).toContain(`scrip #${scripId}`);
    await page.screenshot({ path: '/tmp/h-idle-ticket.png', fullPage: true });
  });
});
