import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, screenshot, signedIn } from './helpers/browser.js';
import { ticketOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D2 snooze in Chromium (decision 071): the Snooze box of the ticket page — presets in the
// reader's zone, a date-time, whether a reply wakes it, Wake now — by keyboard alone, and the
// badges the page and the lists show, at 1280 and 360 px, axe-clean.

const WAIT = 20_000;
const LONG = 120_000;
const PASSWORD = 'browser-password-123';
// Monday 21 December 2026, 09:00 in Berlin.
const NOW = '2026-12-21T08:00:00.000Z';

let s: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];
let agent: { id: number; email: string; token: string };
let customer: { id: number; email: string; token: string };

async function page(width: number): Promise<Page> {
  const { context, page: p } = await signedIn(browser, s.url, agent.email, PASSWORD);
  await p.setViewportSize({ width, height: 800 });
  context.setDefaultTimeout(WAIT);
  contexts.push(context);
  return p;
}
async function axeClean(p: Page, what: string) {
  const axe = await axeCheck(p);
  expect(axe.serious, `${what}: ${axe.message}`).toEqual([]);
}
async function noSideways(p: Page) {
  const { scroll, client } = await p.evaluate(() => {
    const doc = (globalThis as any).document.documentElement;
    return { scroll: doc.scrollWidth as number, client: doc.clientWidth as number };
  });
  expect(scroll).toBeLessThanOrEqual(client);
}
async function newTicket(subject: string): Promise<number> {
  const r = await s.api('POST', '/tickets', { token: customer.token, body: { queue_id: 1, subject } });
  expect(r.status, r.text).toBe(201);
  const id = r.body.ticket.id as number;
  expect((await s.api('PATCH', `/tickets/${id}`, { token: agent.token, body: { owner_id: agent.id } })).status).toBe(
    200,
  );
  return id;
}

beforeAll(async () => {
  s = await startServer({ HXDESK_TEST_CLOCK: '1' });
  expect((await s.api('POST', '/test/clock', { body: { now: NOW } })).status).toBe(200);
  agent = await s.user('agent');
  customer = await s.user('requester');
  const set = await s.api('PATCH', `/users/${agent.id}`, { body: { name: 'Ann Agent', password: PASSWORD } });
  expect(set.status, set.text).toBe(200);
  expect((await s.api('PATCH', '/settings', { token: agent.token, body: { timezone: 'Europe/Berlin' } })).status).toBe(
    200,
  );
  browser = await launchBrowser();
}, LONG);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await s?.close();
});

describe('snooze in a browser', () => {
  it(
    'a preset by keyboard snoozes it in the reader’s zone; the page and the list say so; Wake now wakes it',
    async () => {
      const id = await newTicket('Printer on fire');
      const p = await page(1280);
      await p.goto(`/tickets/${id}`);
      const box = p.getByRole('region', { name: 'Snooze' });
      await box.waitFor();
      await axeClean(p, 'ticket page, awake');
      await screenshot(p, 'snooze-box-1280');
      // Tomorrow morning is 09:00 in Berlin: 08:00Z.
      const tomorrow = box.getByRole('button', { name: 'Tomorrow morning' });
      expect(await tomorrow.getAttribute('value')).toBe('2026-12-22T08:00:00.000Z');
      await tomorrow.focus();
      await p.keyboard.press('Enter');
      await p.getByRole('region', { name: 'Snoozed' }).waitFor();
      expect((await ticketOf(s, id)).snoozed_until).toBe('2026-12-22T08:00:00.000Z');
      expect(await p.getByRole('region', { name: 'Snoozed' }).innerText()).toContain('2026-12-22 09:00');
      expect(await p.locator('#prop-status').inputValue()).toBe('stalled');
      await axeClean(p, 'ticket page, snoozed');
      await screenshot(p, 'snoozed-1280');

      await p.goto('/tickets?snoozed=true');
      const row = p.locator(`tr[data-id="${id}"]`);
      await row.waitFor();
      expect(await row.locator('.status-cell .snooze-badge').innerText()).toMatch(/^Snoozed\s+until 2026-12-22 09:00/);
      expect(await row.locator('.status-cell .snooze-badge').getAttribute('title')).toBe(
        'Snoozed until 2026-12-22 09:00 GMT+1',
      );
      expect(await p.getByRole('link', { name: 'Snoozed', exact: true }).getAttribute('aria-current')).toBe('page');
      await axeClean(p, 'list Snoozed');
      await screenshot(p, 'snoozed-list-1280');

      await p.goto(`/tickets/${id}`);
      const wake = p.getByRole('button', { name: 'Wake now' });
      await wake.focus();
      await p.keyboard.press('Enter');
      await p.getByRole('region', { name: 'Snooze' }).waitFor();
      // The region was there before the answer too: the change is waited for, not assumed done.
      await expect
        .poll(
          async () => {
            const t = await ticketOf(s, id);
            return { status: t.status, snoozed_until: t.snoozed_until };
          },
          { timeout: 10_000 },
        )
        .toEqual({ status: 'open', snoozed_until: null });
    },
    LONG,
  );

  it(
    'at 360 px: a date-time typed in, a reply that does not wake it, and the badge in the list',
    async () => {
      const id = await newTicket('Badge reader beeps');
      const p = await page(360);
      await p.goto(`/tickets/${id}`);
      const box = p.getByRole('region', { name: 'Snooze' });
      await box.waitFor();
      await noSideways(p);
      await screenshot(p, 'snooze-box-360');
      // A date-time field's segments follow the browser's locale: filled as its value is.
      await box.getByLabel('Until').fill('2026-12-24T14:30');
      await box.getByLabel('Wake when the customer replies').focus();
      await p.keyboard.press('Space');
      await box.getByRole('button', { name: 'Snooze', exact: true }).focus();
      await p.keyboard.press('Enter');
      await p.getByRole('region', { name: 'Snoozed' }).waitFor();
      // 14:30 in Berlin.
      expect((await ticketOf(s, id)).snoozed_until).toBe('2026-12-24T13:30:00.000Z');
      const reply = await s.api('POST', `/tickets/${id}/comment`, {
        token: customer.token,
        body: { body: 'Any news?' },
      });
      expect(reply.status, reply.text).toBe(201);
      await p.goto('/tickets?snoozed=true');
      const row = p.locator(`tr[data-id="${id}"]`);
      await row.waitFor();
      expect(await row.innerText()).toContain('Customer replied');
      await noSideways(p);
      await axeClean(p, 'list Snoozed at 360');
      await screenshot(p, 'snoozed-list-360');
      await p.goto(`/tickets/${id}`);
      await p.getByRole('region', { name: 'Snoozed' }).getByText('Customer replied').waitFor();
      await noSideways(p);
      await axeClean(p, 'ticket page snoozed at 360');
      await screenshot(p, 'snoozed-360');
    },
    LONG,
  );
});
