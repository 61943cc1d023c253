// Keyboard shortcuts (static/keys.js) and a keyboard-only walk through the
// agent's day in Chromium: search with "/", pick a ticket with "j"/"k" and Enter, reply with "r"
// and Ctrl+Enter, read the keys with "?". Plus the dialogs' first-field focus.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, settled, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

const T = 20_000;
const poll = { timeout: T, interval: 100 };

let s: TestServer;
let browser: Browser;
let page: Page;
const ids: number[] = [];

const active = (p: Page) =>
  p.evaluate(() => {
    const el = (globalThis as any).document.activeElement as any;
    return {
      tag: el?.tagName.toLowerCase(),
      id: el?.id,
      name: el?.getAttribute('name'),
      text: el?.innerText?.trim(),
      row: el?.closest('tr')?.classList.contains('kbd-current') ?? false,
    };
  });
const highlighted = (p: Page) => p.locator('#tickets-table tbody tr.kbd-current');

beforeAll(async () => {
  s = await startServer();
  for (const subject of [
    'Boiler makes a noise',
    'Printer jam on floor 3',
    'Printer toner empty',
    'Printer offline in room 12',
    'VPN drops every hour',
  ]) {
    const res = await s.api('POST', '/tickets', { body: { queue_id: 1, subject } });
    ids.push(res.body.ticket.id);
  }
  browser = await launchBrowser();
  ({ page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD));
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe('keyboard shortcuts', () => {
  it('a keyboard-only walk: "/" search, "j" "j" Enter, "r" type, Ctrl+Enter sends, the reply is in the history', async () => {
    await page.goto('/tickets');
    await page.locator('#tickets-table').waitFor({ timeout: T });
    await page.keyboard.press('/');
    expect((await active(page)).id).toBe('q');
    await page.keyboard.type('Printer');
    // Typing "j" and "k" in the search box types them; the list's highlight does not move.
    expect(await highlighted(page).count()).toBe(0);
    await expect
      .poll(() => page.locator('#tickets-table tbody td.subject .subject-link').allInnerTexts(), poll)
      .toEqual(['Printer offline in room 12', 'Printer toner empty', 'Printer jam on floor 3']);
    await settled(page);
    // Leave the field (without Escape: in a search box that clears it). Leaving a changed field
    // is a "change", which asks for the list once more: let that answer land before the keys.
    await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/tickets', { timeout: T }),
      page.locator('#q').evaluate((el: any) => el.blur()),
    ]);
    await settled(page);

    await page.keyboard.press('j');
    expect(await highlighted(page).locator('td.subject .subject-link').innerText()).toBe('Printer offline in room 12');
    expect((await active(page)).row).toBe(true);
    await page.keyboard.press('j');
    expect(await highlighted(page).locator('td.subject .subject-link').innerText()).toBe('Printer toner empty');
    await page.keyboard.press('k');
    expect(await highlighted(page).locator('td.subject .subject-link').innerText()).toBe('Printer offline in room 12');
    await page.keyboard.press('j');
    const tonerId = ids[2];
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/tickets/${tonerId}`, { timeout: T });
    await page.locator('#reply-form').waitFor({ timeout: T });

    await page.keyboard.press('n');
    expect((await active(page)).id).toBe('reply-body');
    expect(await page.locator('#reply-form input[name=internal][value="true"]').isChecked()).toBe(true);
    await page.locator('#reply-body').evaluate((el: any) => el.blur());
    await page.keyboard.press('r');
    expect((await active(page)).id).toBe('reply-body');
    expect(await page.locator('#reply-form input[name=internal][value="false"]').isChecked()).toBe(true);
    // Letters typed in the reply box are text, not shortcuts.
    await page.keyboard.type('New toner is on its way, rjn?/');
    expect(await page.locator('#reply-body').inputValue()).toBe('New toner is on its way, rjn?/');
    expect(await page.locator('dialog[open]').count()).toBe(0);
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.locator('#history').innerText(), poll).toContain('New toner is on its way, rjn?/');
    await expect.poll(() => page.locator('#reply-body').inputValue(), poll).toBe('');
    const txns = (await s.api('GET', `/tickets/${tonerId}/transactions`)).body.transactions as {
      type: string;
      body: string | null;
    }[];
    expect(txns.find((t) => t.body === 'New toner is on its way, rjn?/')?.type).toBe('Correspond');
  }, 60_000);

  it('"?" lists the keys in a dialog; Escape closes it and focus goes back', async () => {
    await page.goto('/tickets');
    await page.locator('#tickets-table').waitFor({ timeout: T });
    const first = await page.locator('#tickets-table tbody tr td.subject .subject-link').first().innerText();
    await page.keyboard.press('j');
    const before = await active(page);
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor({ timeout: T });
    const text = await dialog.innerText();
    for (const k of ['/', 'j', 'k', 'Enter', 'r', 'n', 'Ctrl+Enter', '?']) expect(text).toContain(k);
    expect((await active(page)).text).toBe('Close');
    // Shortcuts do not fire under the dialog.
    await page.keyboard.press('j');
    expect(await highlighted(page).count()).toBe(1);
    expect(await highlighted(page).locator('td.subject .subject-link').innerText()).toBe(first);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: T });
    expect(await active(page)).toEqual(before);
  });

  it('no shortcut with Ctrl, Alt or Meta held, nor while typing in a field', async () => {
    await page.goto('/tickets');
    await page.locator('#tickets-table').waitFor({ timeout: T });
    await page.keyboard.press('Alt+j');
    await page.keyboard.press('Control+j');
    expect(await highlighted(page).count()).toBe(0);
    await page.locator('#q').focus();
    await page.keyboard.type('jk');
    expect(await highlighted(page).count()).toBe(0);
    expect(await page.locator('#q').inputValue()).toBe('jk');
    await page.locator('select[name=status]').focus();
    await page.keyboard.press('/');
    expect((await active(page)).name).toBe('status');
  });

  it('the new-ticket dialog puts focus in its first field; Ctrl+Enter outside the reply box sends nothing', async () => {
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'New ticket' }).click();
    await page.locator('dialog[open] #new-ticket-form').waitFor({ timeout: T });
    await expect.poll(async () => (await active(page)).name, poll).toBe('queue_id');
    await page.keyboard.press('Escape');
  });
});
