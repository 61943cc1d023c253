import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { axeCheck } from './helpers/axe.js';
import { historyEntry, launchBrowser, screenshot, settled, signedIn } from './helpers/browser.js';
import { ticketOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';

// SPEC D4 time worked in Chromium (decision 081): the properties panel's Add time form by
// keyboard, the reply box's timer that survives a reload (the browser's clock is moved, never
// waited for) and is cleared by the sent reply, the "My week" page — at 1280 and 360 px,
// axe-clean, nothing wider than the screen.

const WAIT = 20_000;
const LONG = 120_000;
const PASSWORD = 'browser-password-123';

let s: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];
let agent: { id: number; email: string; token: string };
let customer: { id: number; email: string; token: string };

async function page(width: number, js = true): Promise<Page> {
  const { context, page: p } = await signedIn(browser, s.url, agent.email, PASSWORD, { javaScriptEnabled: js });
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
  return r.body.ticket.id as number;
}
const minutesField = (p: Page) => p.locator('#reply-form').getByRole('spinbutton', { name: 'Minutes' });

beforeAll(async () => {
  // Wednesday 10 March 2032, 12:00 UTC.
  s = await startServer({}, { clock: testClock('2032-03-10T12:00:00.000Z') });
  agent = await s.user('agent', 'ui-time-agent@example.com');
  customer = await s.user('requester', 'ui-time-customer@example.com');
  const set = await s.api('PATCH', `/users/${agent.id}`, { body: { name: 'Ann Agent', password: PASSWORD } });
  expect(set.status, set.text).toBe(200);
  browser = await launchBrowser();
}, LONG);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await s?.close();
});

describe('time worked in a browser', () => {
  it(
    'adds an entry from the properties panel by keyboard: the total and the history follow',
    async () => {
      const id = await newTicket('Laptop will not boot');
      for (const width of [1280, 360]) {
        const p = await page(width);
        await p.goto(`/tickets/${id}`);
        const panel = p.getByRole('complementary', { name: 'Ticket properties' });
        await p.getByText('Add time', { exact: true }).first().focus();
        await p.keyboard.press('Enter');
        const minutes = panel.getByRole('spinbutton', { name: 'Minutes' });
        await expect.poll(() => minutes.isVisible()).toBe(true);
        expect(await panel.getByLabel('Date').inputValue()).toBe('2032-03-10');
        await axeClean(p, `ticket page with Add time open at ${width}`);
        await noSideways(p);
        if (width === 360) await screenshot(p, 'ui-time-add-360');
        await minutes.fill(width === 1280 ? '30' : '15');
        await panel.getByLabel('Note').fill(`Reinstalled at ${width}`);
        await panel.getByLabel('Note').press('Enter');
        await settled(p);
        await expect
          .poll(() => historyEntry(p, `Ann Agent worked ${width === 1280 ? 30 : 15} min on 10 Mar`).count())
          .toBe(1);
        await expect
          .poll(() => p.locator('#time-worked-total').textContent())
          .toBe(width === 1280 ? '30 min' : '45 min');
      }
      expect((await ticketOf(s, id)).time_worked_minutes).toBe(45);
    },
    LONG,
  );

  it(
    'the reply box’s timer keeps counting across a reload and is cleared by the sent note',
    async () => {
      const id = await newTicket('Printer on fire');
      const p = await page(1280);
      await p.clock.install({ time: new Date('2032-03-10T12:00:00Z') });
      await p.goto(`/tickets/${id}`);
      const start = p.getByRole('button', { name: 'Start timer' });
      await start.focus();
      await p.keyboard.press('Enter');
      await expect.poll(() => p.getByRole('button', { name: 'Pause timer' }).getAttribute('aria-pressed')).toBe('true');
      await p.clock.fastForward('05:00');
      await expect.poll(() => minutesField(p).inputValue()).toBe('5');
      // A reload: the timer goes on from the instant it started.
      await p.reload();
      await expect.poll(() => p.getByRole('button', { name: 'Pause timer' }).count()).toBe(1);
      await p.clock.fastForward('02:00');
      await expect.poll(() => minutesField(p).inputValue()).toBe('7');
      await expect.poll(() => p.locator('[data-timer-clock]').textContent()).toMatch(/^7:0\d$/);
      await p.getByRole('button', { name: 'Pause timer' }).click();
      await p.clock.fastForward('10:00');
      await p.reload();
      await expect.poll(() => p.getByRole('button', { name: 'Resume timer' }).count()).toBe(1);
      await expect.poll(() => minutesField(p).inputValue()).toBe('7');
      await axeClean(p, 'reply box with a paused timer');
      // Sent as a note: the minutes go with it, the timer starts from nothing again.
      await p.getByLabel('Internal note (owner and AdminCc only)').check();
      await p.getByRole('textbox', { name: 'Message' }).fill('Replaced the fuser');
      await p.getByRole('button', { name: 'Send' }).click();
      await settled(p);
      await expect.poll(() => historyEntry(p, 'Internal note by Ann Agent · 7 min').count()).toBe(1);
      await expect.poll(() => p.getByRole('button', { name: 'Start timer' }).count()).toBe(1);
      expect(await minutesField(p).inputValue()).toBe('');
      expect(await p.evaluate((k) => (globalThis as any).localStorage.getItem(k), `hxdesk-timer-${id}`)).toBeNull();
      expect((await ticketOf(s, id)).time_worked_minutes).toBe(7);
      await p.reload();
      expect(await minutesField(p).inputValue()).toBe('');
    },
    LONG,
  );

  it(
    'without JavaScript: the reply’s minutes and the Add time form are plain forms',
    async () => {
      const id = await newTicket('No scripts here');
      const p = await page(1280, false);
      await p.goto(`/tickets/${id}`);
      // The timer's controls need JavaScript: hidden; the minutes field is typed.
      expect(await p.getByRole('button', { name: 'Start timer' }).count()).toBe(0);
      await minutesField(p).fill('20');
      await p.getByRole('textbox', { name: 'Message' }).fill('Answered by phone');
      await p.getByRole('button', { name: 'Send' }).click();
      await p.waitForURL(`**/tickets/${id}`);
      await expect.poll(() => historyEntry(p, '· 20 min').count()).toBe(1);
      await p.getByText('Add time', { exact: true }).first().click();
      const panel = p.getByRole('complementary', { name: 'Ticket properties' });
      await panel.getByRole('spinbutton', { name: 'Minutes' }).fill('-5');
      await panel.getByLabel('Note').fill('Counted twice');
      await panel.getByRole('button', { name: 'Add time' }).click();
      await p.waitForURL(`**/tickets/${id}`);
      await expect.poll(() => p.locator('#time-worked-total').textContent()).toBe('15 min');
      await expect.poll(() => historyEntry(p, 'Ann Agent worked −5 min on 10 Mar: Counted twice').count()).toBe(1);
    },
    LONG,
  );

  it(
    'My week: the nav link, entries by day with ticket links and totals, the week before',
    async () => {
      for (const width of [1280, 360]) {
        const p = await page(width);
        await p.goto('/tickets');
        await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My week' }).click();
        await p.waitForURL('**/time');
        await expect.poll(() => p.getByRole('heading', { level: 1 }).textContent()).toBe('My week');
        const table = p.getByRole('table', { name: /Time worked, Mon 8 Mar – Sun 14 Mar 2032/ });
        await expect.poll(() => table.getByRole('link', { name: /Laptop will not boot/ }).count()).toBe(2);
        expect(await table.getByRole('link', { name: /Printer on fire/ }).count()).toBe(1);
        expect(await p.locator('#time-total').textContent()).toBe('1 h 7 min');
        await axeClean(p, `My week at ${width}`);
        await noSideways(p);
        if (width === 360) await screenshot(p, 'ui-time-week-360');
        await p.getByRole('link', { name: '← Previous week' }).click();
        await p.waitForURL('**/time?from=2032-03-01&to=2032-03-08');
        await expect.poll(() => p.locator('#time-total').textContent()).toBe('0 min');
      }
    },
    LONG,
  );
});
