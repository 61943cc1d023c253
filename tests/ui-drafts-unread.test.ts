// SPEC D6 in a real browser (docs/decisions/054): Debian's Chromium driven by playwright-core
// against a real hxdesk (real HTTP server on a fixed port, real SQLite file), by keyboard.
// - Drafts: what Ann types in the reply box is saved ("Draft saved"), is there after a reload
//   with its kind, is there on her other device (another browser context of hers), and is gone
//   once sent.
// - Unread: a ticket the customer mailed is marked in Ann's list until she opens it; the
//   customer's next mail marks its row again as the list updates live, and the entry is marked
//   New on the ticket page.
// - Connection state: the server stops under the open page ("Reconnecting…"; a draft saved then
//   says it may not have been saved) and starts again on the same port and data (the line is
//   emptied, the next save goes through).
// At 1280 px and 360 px, axe-core clean, screenshots of each state.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { historyEntry, launchBrowser, liveOpen, screenshot, settled, signedIn } from './helpers/browser.js';
import { MAILGATE_TOKEN, postMail } from './helpers/mail.js';
import { message } from './helpers/mailgate.js';
import { freePort } from './helpers/net.js';
import { okApi, startServer, type TestServer } from './helpers/server.js';
import { mintedToken } from './helpers/session.js';

const T = 20_000;
const poll = { timeout: T, interval: 100 };
const PASSWORD = 'drafts-agent-password-1';
const CUSTOMER = 'carla@customer.example';

let env: Record<string, string>;
let s: TestServer;
let browser: Browser;
let ann: { context: BrowserContext; page: Page };
let annPhone: { context: BrowserContext; page: Page }; // Ann's other device
let annId = 0;
let ticketId = 0;

const api = <T = any>(method: string, p: string, body?: unknown) => okApi(s)<T>(method, p, body);

async function customerMails(subject: string, body: string): Promise<number> {
  const m = message({ from: `Carla Customer <${CUSTOMER}>`, to: 'hxdesk@localhost', subject, body: `${body}\n` });
  const res = await postMail(s, m.raw);
  expect(res.status, res.text).toBeLessThan(300);
  return res.body.ticket_id as number;
}

const rowOf = (p: Page, id: number) => p.locator(`#ticket-list tr[data-id="${id}"]`);
const box = (p: Page) => p.locator('#reply-body');
const draftStatus = (p: Page) => p.locator('#draft-status');
const draftNow = async () => {
  const res = await s.api('GET', `/tickets/${ticketId}/draft`, { token: annToken });
  return res.body.draft as null | { kind: string; body: string };
};
let annToken = '';

async function axeClean(p: Page) {
  const axe = await axeCheck(p);
  expect(axe.serious, axe.message).toEqual([]);
}
async function fits(p: Page, name: string) {
  for (const width of [1280, 360]) {
    await p.setViewportSize({ width, height: 800 });
    expect(await p.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await axeClean(p);
    await screenshot(p, `${name}-${width}`);
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}

beforeAll(async () => {
  env = {
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-drafts-ui-')),
    PORT: String(await freePort()),
    MAILGATE_TOKEN,
    EVENTS_RETRY_MS: '300',
  };
  s = await startServer(env);
  const made = await api('POST', '/users', {
    email: 'ann@example.com',
    name: 'Ann Agent',
    role: 'agent',
    password: PASSWORD,
  });
  annId = made.id;
  annToken = await mintedToken(s, { id: annId, email: 'ann@example.com', role: 'agent' });
  ticketId = await customerMails('The printer is on fire', 'It smokes.');
  browser = await launchBrowser();
  ann = await signedIn(browser, s.url, 'ann@example.com', PASSWORD);
  annPhone = await signedIn(browser, s.url, 'ann@example.com', PASSWORD);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
  if (env?.DATA_DIR) fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
});

describe('unread marks in the list', () => {
  it("marks the customer's ticket until Ann opens it (keyboard), and the page marks nothing on a first visit", async () => {
    const { page } = ann;
    await page.goto('/tickets');
    const row = rowOf(page, ticketId);
    await expect.poll(() => row.locator('.unread-dot').count(), poll).toBe(1);
    expect(await row.getByText('New activity').count()).toBe(1);
    expect(await row.locator('td.subject a').evaluate((a) => (globalThis as any).getComputedStyle(a).fontWeight)).toBe(
      '700',
    );
    await fits(page, 'unread-list');
    // By keyboard: the subject link, Enter.
    await row.locator('td.subject a').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/tickets/${ticketId}`);
    await liveOpen(page, T);
    expect(await page.locator('.txn-new').count()).toBe(0);
    await page.goto('/tickets');
    await expect.poll(() => rowOf(page, ticketId).locator('.unread-dot').count(), poll).toBe(0);
  });
});

describe('drafts', () => {
  it('saves what Ann types, keeps it over a reload with its kind, shows it on her other device, and drops it once sent', async () => {
    const { page } = ann;
    await page.goto(`/tickets/${ticketId}`);
    await liveOpen(page, T);
    await box(page).focus();
    await page.keyboard.type('Dear Carla, a technician is on the way.');
    await expect.poll(() => draftStatus(page).textContent(), poll).toBe('Draft saved');
    await expect.poll(async () => (await draftNow())?.body, poll).toBe('Dear Carla, a technician is on the way.');
    // The kind by keyboard: Shift+Tab back to the reply/note choice, an arrow to "Internal note".
    await page.getByRole('radio', { name: /Public reply/ }).focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.getByRole('radio', { name: /Internal note/ }).isChecked()).toBe(true);
    await expect.poll(async () => (await draftNow())?.kind, poll).toBe('note');
    await fits(page, 'draft-saved');

    await page.reload();
    expect(await box(page).inputValue()).toBe('Dear Carla, a technician is on the way.');
    expect(await page.getByRole('radio', { name: /Internal note/ }).isChecked()).toBe(true);
    expect(await draftStatus(page).textContent()).toBe('Draft saved');

    await annPhone.page.goto(`/tickets/${ticketId}`);
    expect(await box(annPhone.page).inputValue()).toBe('Dear Carla, a technician is on the way.');
    await screenshot(annPhone.page, 'draft-other-device');

    // Public after all, then Send by keyboard.
    await page.getByRole('radio', { name: /Internal note/ }).focus();
    await page.keyboard.press('ArrowUp');
    await page.getByRole('button', { name: 'Send' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => historyEntry(page, 'a technician is on the way').count(), poll).toBe(1);
    await settled(page);
    expect(await box(page).inputValue()).toBe('');
    expect(await draftStatus(page).textContent()).toBe('');
    await expect.poll(() => draftNow(), poll).toBeNull();
    await page.reload();
    expect(await box(page).inputValue()).toBe('');
    await annPhone.page.reload();
    expect(await box(annPhone.page).inputValue()).toBe('');
  });

  it('sends when Send is pressed as the first save lands: "Draft saved" does not move the button under the pointer', async () => {
    // Pressing Send takes the focus from the text box, which saves the draft; its answer
    // ("Draft saved") may come back while the mouse button is still down. The button must stay
    // where it was pressed, or the release lands beside it and nothing is sent.
    const { page } = ann;
    await page.goto(`/tickets/${ticketId}`);
    await liveOpen(page, T);
    expect(await draftStatus(page).textContent()).toBe('');
    await box(page).fill('Ann: the building is evacuated.');
    const send = page.getByRole('button', { name: 'Send', exact: true });
    const pressed = (await send.boundingBox())!;
    await page.mouse.move(pressed.x + pressed.width / 2, pressed.y + pressed.height / 2);
    await page.mouse.down();
    await expect.poll(() => draftStatus(page).textContent(), poll).toBe('Draft saved');
    expect(await send.boundingBox()).toEqual(pressed);
    await page.mouse.up();
    await expect.poll(() => historyEntry(page, 'the building is evacuated').count(), poll).toBe(1);
    await expect.poll(() => draftNow(), poll).toBeNull();
    expect(await box(page).inputValue()).toBe('');
  });
});

describe('unread, live', () => {
  it('marks the row again when Carla writes, as the list updates live, and her entry is New on the page', async () => {
    const { page } = ann;
    await page.goto('/tickets');
    await liveOpen(page, T);
    const row = rowOf(page, ticketId);
    expect(await row.locator('.unread-dot').count()).toBe(0);
    await customerMails(`Re: [hxdesk #${ticketId}] The printer is on fire`, 'Thanks! It still smokes a bit.');
    await expect.poll(() => row.locator('.unread-dot').count(), poll).toBe(1);
    expect(await row.getByText('New activity').count()).toBe(1);
    await screenshot(page, 'unread-live-row');

    await row.locator('td.subject a').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/tickets/${ticketId}`);
    await liveOpen(page, T);
    const entry = historyEntry(page, 'It still smokes a bit');
    expect(await entry.locator('.txn-new').textContent()).toBe('New');
    expect(await page.locator('.txn-new').count()).toBe(1);
    await fits(page, 'unread-new-entry');
  });
});

describe('connection state', () => {
  it('says "Reconnecting…" while the server is away and clears it once the stream is back', async () => {
    const { page } = ann;
    await page.goto(`/tickets/${ticketId}`);
    await liveOpen(page, T);
    const state = page.getByRole('status').filter({ hasText: 'Reconnecting…' });
    expect(await page.locator('#stream-state').textContent()).toBe('');
    await s.close();
    await state.waitFor({ timeout: T });
    expect(await page.locator('#stream-state').getAttribute('aria-live')).toBe('polite');
    // A draft saved while the server is away says it may not have been saved, and keeps the text.
    await box(page).focus();
    await page.keyboard.type('Written offline');
    await expect.poll(() => page.locator('#reply-error').textContent(), poll).toContain('Could not reach the server');
    await fits(page, 'connection-reconnecting');
    s = await startServer(env);
    await liveOpen(page, 60_000);
    await expect.poll(() => page.locator('#stream-state').textContent(), { timeout: 60_000, interval: 100 }).toBe('');
    expect(await state.count()).toBe(0);
    // Back: the next save goes through and the words go.
    await page.keyboard.type(', and saved');
    await expect.poll(async () => (await draftNow())?.body, poll).toBe('Written offline, and saved');
    await expect.poll(() => page.locator('#reply-error').textContent(), poll).toBe('');
    expect(await draftStatus(page).textContent()).toBe('Draft saved');
    await screenshot(page, 'connection-back');
  });
});
