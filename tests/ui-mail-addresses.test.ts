import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, screenshot, settled, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// SPEC D6 in Chromium: the admin page of our own addresses (admin area, "Mail addresses"):
// the list admins keep, edited with the keyboard only; the addresses that are ours from
// elsewhere, read-only, with where each comes from; the warning about tickets that still name
// one of them. At 1280 and 360 px, axe-clean (decision 051).

const T = 20_000;
let s: TestServer;
let browser: Browser;
let ticketId: number;

const active = (p: Page) =>
  p.evaluate(() => {
    const el = (globalThis as any).document.activeElement as any;
    return { name: el?.getAttribute('name') ?? '', text: (el?.innerText ?? '').trim() };
  });

/** Presses Tab until the focused element matches (at most 40 presses): how a keyboard user gets there. */
async function tabTo(p: Page, match: (a: { name: string; text: string }) => boolean) {
  for (let i = 0; i < 40; i++) {
    await p.keyboard.press('Tab');
    if (match(await active(p))) return;
  }
  throw new Error(`never reached by Tab; last: ${JSON.stringify(await active(p))}`);
}

beforeAll(async () => {
  s = await startServer({ MAIL_ADDRESSES: 'desk@env.example' });
  const q = await s.api('POST', '/queues', { body: { name: 'Billing', mail_alias: 'billing@queues.example' } });
  expect(q.status, q.text).toBe(201);
  const t = await s.api('POST', '/tickets', {
    body: {
      queue_id: 1,
      subject: 'Printer on fire',
      requesters: ['olga@customer.example'],
      cc: ['help@ours.example'],
    },
  });
  expect(t.status, t.text).toBe(201);
  ticketId = t.body.ticket.id;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe('the admin page of our own addresses', () => {
  it('keyboard only: a wrong address is named next to the field; the saved list warns of the ticket that names it', async () => {
    const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
    context.setDefaultTimeout(T);
    await page.goto('/mail/intake');
    await page
      .getByRole('navigation', { name: 'Administration' })
      .getByRole('link', { name: 'Mail addresses' })
      .click();
    await page.waitForURL('**/mail-settings');
    await expect.poll(() => page.locator('main h1').innerText()).toBe('Mail addresses');
    const also = (await page.locator('.our-addresses li').allInnerTexts()).map((x) => x.replace(/\s+/g, ' ').trim());
    expect(also).toEqual([
      'hxdesk@localhost — MAIL_FROM',
      'desk@env.example — MAIL_ADDRESSES',
      'billing@queues.example — alias of queue Billing',
    ]);
    expect(await page.locator('.our-address-warning').count()).toBe(0);
    expect((await axeCheck(page)).message).toBe('');

    await tabTo(page, (a) => a.name === 'mail_addresses');
    await page.keyboard.type('Help@ours.example\nnope');
    await tabTo(page, (a) => a.text === 'Save addresses');
    await page.keyboard.press('Enter');
    // A one-field form keeps the message in its own box, named by the field's aria-describedby (decision 052).
    const box = page.getByRole('textbox', { name: 'Our addresses' });
    const described = async () => {
      const id = (await box.getAttribute('aria-describedby'))?.split(' ').at(-1);
      return id ? (await page.locator(`#${id}`).innerText()).trim() : '';
    };
    await expect.poll(described).toContain('"nope" is not an e-mail address');
    expect(await box.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('"nope" is not an e-mail address').count()).toBe(1);
    expect((await axeCheck(page)).message).toBe('');
    await screenshot(page, 'mail-addresses-error');

    // Shift+Tab back to the box, take the wrong line out, save again.
    await page.keyboard.press('Shift+Tab');
    expect((await active(page)).name).toBe('mail_addresses');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await tabTo(page, (a) => a.text === 'Save addresses');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/mail-settings?saved');
    await settled(page);
    expect(await page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
    expect(await page.getByRole('textbox', { name: 'Our addresses' }).inputValue()).toBe('help@ours.example');
    const warning = page.getByRole('region', { name: '1 ticket names one of our addresses as a person' });
    expect(await warning.count()).toBe(1);
    expect(await warning.getByRole('link', { name: `#${ticketId}` }).getAttribute('href')).toBe(`/tickets/${ticketId}`);
    expect((await warning.locator('tbody tr').innerText()).replace(/\s+/g, ' ')).toContain(
      'Printer on fire help@ours.example Cc',
    );
    expect((await axeCheck(page)).message).toBe('');
    await screenshot(page, 'mail-addresses');
    await context.close();
  });

  it('at 360 px: no sideways scrolling, the warning table scrolls in its own box, axe-clean', async () => {
    const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
    context.setDefaultTimeout(T);
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto('/mail-settings');
    await page.locator('.our-address-warning').waitFor();
    expect(
      await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number),
    ).toBeLessThanOrEqual(360);
    for (const sel of ['textarea[name=mail_addresses]', '.our-addresses', '.our-address-warning h2']) {
      const box = (await page.locator(sel).boundingBox())!;
      expect(box.x + box.width, sel).toBeLessThanOrEqual(360);
    }
    expect((await axeCheck(page)).message).toBe('');
    await screenshot(page, 'mail-addresses-360');
    await context.close();
  });
});
