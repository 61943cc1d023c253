// The conversation in a real browser (SPEC D6): a history entry's scrips as one quiet line that
// opens by keyboard; "Reply" on an entry quoting it into the reply box, focused; an @mention in an
// internal note picked from the staff list by keyboard (arrows, Enter; Esc closes), sent, and
// its person made AdminCc; Markdown shown formatted. At 1280 px and 360 px, axe-clean.
// Debian's Chromium driven by playwright-core against a real hxdesk (HTTP server, SQLite file).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { rawConfigRun } from './helpers/db.js';
import { historyEntry, launchBrowser, messageBox, screenshot, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, okApi, startServer, type TestServer } from './helpers/server.js';

const T = 20_000;
const poll = { timeout: T, interval: 100 };

let s: TestServer;
let browser: Browser;
let bobId: number;

const api = <T = any>(method: string, path: string, body?: unknown) => okApi(s)<T>(method, path, body);

let seq = 0;
async function ticket(): Promise<number> {
  const t = await api('POST', '/tickets', {
    queue_id: 1,
    subject: `Printer jam ${++seq}`,
    description: 'The printer *eats* paper.',
    requesters: [`rita${seq}@customer.example`],
  });
  const id = t.ticket.id as number;
  await api('POST', `/tickets/${id}/comment`, {
    internal: false,
    body: '**Try this** first:\n\n1. Open the tray\n2. Pull the `green` lever\n\nSee [the manual](https://example.com/manual).',
  });
  return id;
}

beforeAll(async () => {
  s = await startServer();
  browser = await launchBrowser();
  bobId = (await api('POST', '/users', { email: 'bob.builder@example.com', name: 'Bob Builder', role: 'agent' })).id;
  await api('POST', '/users', { email: 'bobby@customer.example', name: 'Bobby Customer', role: 'requester' });
  await api('POST', '/users', { email: 'bob.gone@example.com', name: 'Bob Gone', role: 'agent', disabled: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

async function expectAxeClean(page: Page) {
  const axe = await axeCheck(page);
  expect(axe.serious, axe.message).toEqual([]);
}

for (const width of [1280, 360]) {
  describe(`the conversation at ${width} px`, () => {
    let context: BrowserContext;
    let page: Page;
    beforeAll(async () => {
      ({ context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD));
      await page.setViewportSize({ width, height: 900 });
    });
    afterAll(async () => {
      await context?.close();
    });

    it('shows Markdown formatted and each entry’s scrips as one quiet line that opens by keyboard', async () => {
      const id = await ticket();
      await page.goto(`/tickets/${id}`);
      const reply = historyEntry(page, 'Reply by');
      await reply.waitFor();
      expect(await reply.locator('.txn-body strong').innerText()).toBe('Try this');
      expect(await reply.locator('.txn-body ol li').allInnerTexts()).toEqual(['Open the tray', 'Pull the green lever']);
      expect(await reply.locator('.txn-body a').getAttribute('href')).toBe('https://example.com/manual');
      const line = historyEntry(page, 'Ticket created by').locator('details.scrip-line');
      expect(await line.locator('summary').innerText()).toBe('1 person notified');
      const list = line.getByRole('list', { name: 'Scrips' });
      expect(await list.isVisible()).toBe(false);
      await line.locator('summary').focus();
      await page.keyboard.press('Enter');
      await list.waitFor({ state: 'visible', timeout: T });
      expect(await list.innerText()).toContain('✓ autoreply_on_create (autoreply_requester, 1 notification)');
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
      await screenshot(page, `convo-history-${width}`);
      await expectAxeClean(page);
    });

    it('Reply on an entry quotes it into the reply box and focuses it', async () => {
      const id = await ticket();
      await page.goto(`/tickets/${id}`);
      const link = historyEntry(page, 'Reply by').getByRole('link', { name: /Reply quoting the message by/ });
      await link.focus();
      await page.keyboard.press('Enter');
      await expect
        .poll(() => messageBox(page).inputValue(), poll)
        .toMatch(/^On \d{4}-\d\d-\d\d \d\d:\d\d, .+ wrote:\n/);
      const text = await messageBox(page).inputValue();
      expect(text).toContain('> **Try this** first:\n>\n> 1. Open the tray\n');
      expect(page.url()).not.toContain('quote='); // filled in place, no page load
      expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('reply-body');
      // Typing goes on after the quote.
      await page.keyboard.type('It works now?');
      expect(await messageBox(page).inputValue()).toMatch(/\n\nIt works now\?$/);
      await screenshot(page, `convo-quote-${width}`);
      await expectAxeClean(page);
    });

    it('an @mention in a note is picked from the staff by keyboard, sent, and makes them AdminCc', async () => {
      const id = await ticket();
      await page.goto(`/tickets/${id}`);
      await page.getByLabel('Internal note (owner and AdminCc only)').check();
      await messageBox(page).focus();
      await page.keyboard.type('Looping in @bo');
      const listbox = page.getByRole('listbox', { name: 'Staff to mention' });
      await listbox.waitFor({ timeout: T });
      // Staff only: the requester and the disabled agent are not offered.
      await expect
        .poll(() => listbox.getByRole('option').allInnerTexts(), poll)
        .toEqual(['Bob Builder bob.builder@example.com']);
      expect(await messageBox(page).getAttribute('aria-activedescendant')).toBe(`mention-option-${bobId}`);
      await screenshot(page, `convo-mention-${width}`);
      await expectAxeClean(page);
      // Esc closes the list and leaves the text as typed.
      await page.keyboard.press('Escape');
      await listbox.waitFor({ state: 'detached', timeout: T });
      expect(await messageBox(page).inputValue()).toBe('Looping in @bo');
      // Typing on opens it again; Enter picks the highlighted person (and does not send).
      await page.keyboard.type('b');
      await listbox.waitFor({ timeout: T });
      await page.keyboard.press('ArrowDown'); // one option: wraps back to it
      await page.keyboard.press('Enter');
      await listbox.waitFor({ state: 'detached', timeout: T });
      expect(await messageBox(page).inputValue()).toBe('Looping in @bob.builder ');
      await page.keyboard.type('about the **tray**.');
      await page.getByRole('button', { name: 'Send' }).click();
      const note = historyEntry(page, 'Internal note by');
      await note.waitFor({ timeout: T });
      expect(await note.locator('.txn-body strong').innerText()).toBe('tray');
      await historyEntry(page, 'added Bob Builder as AdminCc').waitFor({ timeout: T });
      expect((await api('GET', `/tickets/${id}`)).admin_cc).toEqual([bobId]);
      // In a public reply "@" offers nobody.
      await page.locator('input[name=internal][value=false]').check();
      await messageBox(page).focus();
      await page.keyboard.type('Thanks @bo');
      expect(await page.getByRole('listbox').count()).toBe(0);
      await screenshot(page, `convo-note-sent-${width}`);
    });
  });
}

describe('a failed scrip', () => {
  it('stands out: its line says so first and is open', async () => {
    const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
    try {
      const scrip = await api('POST', '/scrips', {
        key: 'broken_on_note',
        condition: 'on_comment',
        action: 'set_status',
        queue_id: 1,
        config: { status: 'open' },
      });
      // Damaged behind the API's back (a hand edit), as tests/notifications.test.ts does.
      expect(await rawConfigRun(s, 'UPDATE scrips SET config=\'{"status":"bogus"}\' WHERE id=?', [scrip.id])).toBe(1);
      const id = await ticket();
      await api('POST', `/tickets/${id}/comment`, { internal: true, body: 'Checked the fuser.' });
      await api('DELETE', `/scrips/${scrip.id}`);
      await page.goto(`/tickets/${id}`);
      const line = historyEntry(page, 'Internal note by').locator('details.scrip-line');
      expect(await line.getAttribute('open')).not.toBeNull();
      expect(await line.locator('summary').innerText()).toBe('1 scrip failed');
      expect(await line.getByRole('list', { name: 'Scrips' }).innerText()).toContain('✗ Failed: broken_on_note');
      await screenshot(page, 'convo-scrip-failed-1280');
      await expectAxeClean(page);
    } finally {
      await context.close();
    }
  });
});
