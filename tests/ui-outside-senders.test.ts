import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, screenshot, settled, signedIn } from './helpers/browser.js';
import { MAILGATE_TOKEN, postMail, rawMail } from './helpers/mail.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';
import { uniq } from './helpers/unique.js';

// SPEC D0 in the browser: the ticket page shows an outside sender's mail with its sender and an
// "Add as Cc" action, and lists the people the Cc bounds left out, each one action away — by
// keyboard, at 360 px and on a desktop, with axe finding nothing serious, and without JavaScript.

const T = 20_000;
const poll = { timeout: T, interval: 100 };
let s: TestServer;
let browser: Browser;

async function mail(h: { from: string; cc?: string[]; subject: string }, body: string) {
  const res = await postMail(s, rawMail(h, body));
  expect(res.status, res.text).toBeLessThan(300);
  return res.body as { ticket_id: number; transaction_id: number };
}

/** Carla's ticket naming 12 colleagues (2 not added), then a message from someone not on it. */
async function scene() {
  const named = Array.from({ length: 12 }, (_, i) => `colleague${i + 1}@customer.example`);
  const t = await mail(
    { from: 'Carla Rossi <carla@customer.example>', cc: named, subject: uniq('Invoice question ') },
    'Where is my invoice?',
  );
  const outsider = await mail(
    { from: 'Oscar Outsider <oscar@elsewhere.example>', subject: `Re: [hxdesk #${t.ticket_id}]` },
    'Please add me, I am her accountant.',
  );
  return { id: t.ticket_id, outsiderTxn: outsider.transaction_id };
}

const ccNames = (p: Page) =>
  p
    .locator('#people .people-role')
    .filter({ has: p.getByRole('heading', { name: 'Cc', exact: true }) })
    .innerText();

beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN, MAIL_ADDRESSES: 'support@helpdesk.example' });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe('the ticket page of a ticket an outsider wrote to', () => {
  it('shows the message with its sender; "Add as Cc" by keyboard lets them in; axe finds nothing serious', async () => {
    const { id, outsiderTxn } = await scene();
    const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
    context.setDefaultTimeout(T);
    try {
      await page.goto(`/tickets/${id}`);
      const entry = page.locator(`#txn-${outsiderTxn}`);
      expect(await entry.locator('.txn-what').innerText()).toBe(
        'Mail from an outside sender, Oscar Outsider <oscar@elsewhere.example>',
      );
      expect(await entry.innerText()).toContain('Not on this ticket: kept as an internal comment');
      const notAdded = page.locator('#people .not-added');
      expect(await notAdded.innerText()).toMatch(
        /colleague11@customer\.example\s+more than 10 new people in one message/,
      );
      expect((await axeCheck(page)).message).toBe('');
      await screenshot(page, 'ticket-outside-sender');

      // Keyboard only: focus the entry's action and press Enter.
      const add = entry.getByRole('button', { name: 'Add as Cc: Oscar Outsider <oscar@elsewhere.example>' });
      await add.focus();
      await page.keyboard.press('Enter');
      await settled(page);
      await expect.poll(() => ccNames(page), poll).toContain('Oscar Outsider');
      await expect
        .poll(() => page.locator(`#txn-${outsiderTxn}`).innerText(), poll)
        .toContain('They are on the ticket now.');
      expect(
        await page
          .locator(`#txn-${outsiderTxn}`)
          .getByRole('button', { name: /Add as Cc/ })
          .count(),
      ).toBe(0);

      // One of the people the bounds left out, by keyboard too.
      await notAdded.getByRole('button', { name: 'Add as Cc: colleague11@customer.example' }).focus();
      await page.keyboard.press('Enter');
      await settled(page);
      await expect.poll(() => ccNames(page), poll).toContain('colleague11@customer.example');
      expect(await page.locator('#people .not-added').innerText()).not.toContain('colleague11@');
      expect(await page.locator('#people .not-added').innerText()).toContain('colleague12@');
      expect((await axeCheck(page)).message).toBe('');
    } finally {
      await context.close();
    }
  }, 90_000);

  it('fits a 360 px phone', async () => {
    const { id, outsiderTxn } = await scene();
    const { context } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
    const phone = await browser.newContext({
      baseURL: s.url,
      viewport: { width: 360, height: 740 },
      storageState: await context.storageState(),
    });
    await context.close();
    phone.setDefaultTimeout(T);
    try {
      const page = await phone.newPage();
      await page.goto(`/tickets/${id}`);
      const add = page.locator(`#txn-${outsiderTxn}`).getByRole('button', { name: /Add as Cc: Oscar Outsider/ });
      await add.scrollIntoViewIfNeeded();
      const box = (await add.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(360);
      const listed = page
        .locator('#people .not-added')
        .getByRole('button', { name: 'Add as Cc: colleague12@customer.example' });
      await listed.scrollIntoViewIfNeeded();
      const lb = (await listed.boundingBox())!;
      expect(lb.x + lb.width).toBeLessThanOrEqual(360);
      expect(
        await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number),
      ).toBeLessThanOrEqual(360);
      expect((await axeCheck(page)).message).toBe('');
      await screenshot(page, 'ticket-outside-sender-phone');
    } finally {
      await phone.close();
    }
  }, 90_000);

  it('works without JavaScript: the action is a plain form that lands back on the ticket', async () => {
    const { id, outsiderTxn } = await scene();
    const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD, { javaScriptEnabled: false });
    context.setDefaultTimeout(T);
    try {
      await page.goto(`/tickets/${id}`);
      await page
        .locator(`#txn-${outsiderTxn}`)
        .getByRole('button', { name: /Add as Cc: Oscar Outsider/ })
        .click();
      await page.waitForURL((u) => u.pathname === `/tickets/${id}`);
      expect(await ccNames(page)).toContain('Oscar Outsider');
      expect(await page.locator(`#txn-${outsiderTxn}`).innerText()).toContain('They are on the ticket now.');
    } finally {
      await context.close();
    }
  }, 90_000);
});
