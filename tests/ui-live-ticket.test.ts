// The live ticket page and portal page in a real browser (SPEC C5): Debian's Chromium driven by
// playwright-core against a real hxdesk (real HTTP server, real SQLite file). Two agents (two
// browser contexts) on one ticket: each sees the other's reply, a customer's mail in through
// /mailgate and property changes appear without reload, text typed in the reply box untouched;
// who else is here and who is typing; a select in use is not swapped from under its user; the
// server stops (every connection cut, its hub and store closed) and starts again on the same
// port and data under the open pages, which catch up, nothing shown twice; the customer's portal
// page (a signed link) shows a public reply live and never an internal note.
//
// The server runs in this process and is restarted here, not spawned: a spawned `node --import
// tsx src/server.ts` takes ~7 s per start, twice, beyond this file's share of CI time. What the
// page meets is the same: connections refused, then a new server with a new hub on the old port.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { historyEntry, historyIds, launchBrowser, liveOpen, screenshot, signedIn } from './helpers/browser.js';
import { sharedStoreEnv } from './helpers/db.js';
import { MAILGATE_TOKEN, postMail } from './helpers/mail.js';
import { message } from './helpers/mailgate.js';
import { freePort } from './helpers/net.js';
import { signedPath } from './helpers/portal.js';
import { startServer, type TestServer, okApi } from './helpers/server.js';

const T = 20_000;
const poll = { timeout: T, interval: 100 };
const PASSWORD = 'live-agent-password-1';
const CUSTOMER = 'carla@customer.example';

let env: Record<string, string>;
let s: TestServer;
let browser: Browser;
let ann: { context: BrowserContext; page: Page };
let ben: { context: BrowserContext; page: Page };
let ticketId = 0;

const api = <T = any>(method: string, path: string, body?: unknown) => okApi(s)<T>(method, path, body);

/** Carla's reply to the ticket by mail, through POST /mailgate as an MTA delivers it. */
async function customerReplies(body: string): Promise<void> {
  const m = message({
    from: `Carla Customer <${CUSTOMER}>`,
    to: 'hxdesk@localhost',
    subject: `Re: [hxdesk #${ticketId}] Printer`,
    body: `${body}\n`,
  });
  const res = await postMail(s, m.raw);
  expect(res.status, res.text).toBeLessThan(300);
}

/** Every entry of the ticket's history (as the API lists it) once, in order, on the page. */
async function expectWholeHistoryOnce(p: Page): Promise<void> {
  const want = (
    await api<{ transactions: { id: number }[] }>('GET', `/tickets/${ticketId}/transactions`)
  ).transactions.map((t) => `txn-${t.id}`);
  await expect.poll(() => historyIds(p), poll).toEqual(want);
}

beforeAll(async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  env = {
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-live-ui-')),
    PORT: String(await freePort()),
    MAILGATE_TOKEN,
    EVENTS_RETRY_MS: '300',
    ...(await sharedStoreEnv()),
  };
  s = await startServer(env);
  await api('POST', '/users', { email: 'ann@example.com', name: 'Ann Agent', role: 'agent', password: PASSWORD });
  await api('POST', '/users', { email: 'ben@example.com', name: 'Ben Agent', role: 'agent', password: PASSWORD });
  ticketId = (
    await api('POST', '/tickets', {
      queue_id: 1,
      subject: 'Printer on fire',
      description: 'It smokes.',
      requesters: [CUSTOMER],
    })
  ).ticket.id;
  browser = await launchBrowser();
  [ann, ben] = await Promise.all([
    signedIn(browser, s.url, 'ann@example.com', PASSWORD),
    signedIn(browser, s.url, 'ben@example.com', PASSWORD),
  ]);
  await Promise.all([ann.page.goto(`/tickets/${ticketId}`), ben.page.goto(`/tickets/${ticketId}`)]);
  await Promise.all([liveOpen(ann.page, T), liveOpen(ben.page, T)]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
  if (env?.DATA_DIR) (await import('node:fs')).rmSync(env.DATA_DIR, { recursive: true, force: true });
});

describe('the ticket page, live', () => {
  it("shows Ben Ann's reply, a customer's mail and Ann's status change as they happen, his own draft untouched", async () => {
    const draft = ben.page.locator('#reply-body');
    await draft.fill('Dear Carla, my draft');
    await draft.focus();

    await ann.page.locator('#reply-body').fill('Ann here: a technician is on the way.');
    await ann.page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => historyEntry(ben.page, 'a technician is on the way').count(), poll).toBe(1);

    await customerReplies('Carla again: it is still smoking.');
    await expect.poll(() => historyEntry(ben.page, 'it is still smoking').count(), poll).toBe(1);
    await expect.poll(() => historyEntry(ann.page, 'it is still smoking').count(), poll).toBe(1);

    await ann.page.locator('#prop-status').selectOption('stalled');
    await expect.poll(() => ben.page.locator('#ticket-head .status').textContent(), poll).toBe('Stalled');
    await expect.poll(() => ben.page.locator('#prop-status').inputValue(), poll).toBe('stalled');
    // (Ann's reply took the new ticket up first: new → open, SPEC D6.)
    await expect.poll(() => historyEntry(ben.page, 'Status changed from Open to Stalled').count(), poll).toBe(1);

    expect(await draft.inputValue()).toBe('Dear Carla, my draft');
    expect(await ben.page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('reply-body');
    await expectWholeHistoryOnce(ben.page);
    await expectWholeHistoryOnce(ann.page);
  });

  it('leaves a property control alone while its user has it, and brings it up to date when they leave it', async () => {
    const owner = ben.page.locator('#prop-owner_id');
    await owner.focus();
    await api('PATCH', `/tickets/${ticketId}`, { status: 'open', priority: 40 });
    // The head (not in use) shows the change; the properties Ben is using wait for him.
    await expect.poll(() => ben.page.locator('#ticket-head .status').textContent(), poll).toBe('Open');
    expect(await ben.page.locator('#prop-status').inputValue()).toBe('stalled');
    expect(await ben.page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('prop-owner_id');
    await ben.page.locator('#reply-body').focus();
    await expect.poll(() => ben.page.locator('#prop-status').inputValue(), poll).toBe('open');
    await expect.poll(() => ben.page.locator('#prop-priority').inputValue(), poll).toBe('40');
    expect(await ben.page.locator('#reply-body').inputValue()).toBe('Dear Carla, my draft');
  });

  it('shows who else is here and who is typing, and forgets a closed page within seconds', async () => {
    const benSees = ben.page.locator('#presence');
    await expect.poll(() => benSees.textContent(), poll).toContain('Ann Agent');
    await expect.poll(() => ann.page.locator('#presence').textContent(), poll).toContain('Ben Agent');
    await ann.page.locator('#reply-body').pressSequentially('Thinking about it', { delay: 20 });
    await expect.poll(() => benSees.textContent(), poll).toContain('Ann Agent is typing a reply');

    for (const width of [1280, 360]) {
      await ben.page.setViewportSize({ width, height: 800 });
      expect(
        await ben.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth),
      ).toBeLessThanOrEqual(width);
      await screenshot(ben.page, `live-ticket-presence-${width}`);
    }
    await ben.page.setViewportSize({ width: 1280, height: 800 });
    const axe = await axeCheck(ben.page);
    expect(axe.serious, axe.message).toEqual([]);

    await ann.page.close();
    await expect.poll(() => benSees.textContent(), poll).not.toContain('Ann Agent');
    ann.page = await ann.context.newPage();
    await ann.page.goto(`/tickets/${ticketId}`);
    await liveOpen(ann.page, T);
  });

  it('catches up after the server restarts on the same port and data: changes appear, nothing twice', async () => {
    await s.close();
    await expect
      .poll(() => ben.page.locator('[data-live-root]').getAttribute('data-live-state'), poll)
      .toBe('reconnecting');
    // A live load while the server is away (here: asked for by hand) fails quietly: no error is said on the page.
    const failed = ben.page.evaluate(
      () =>
        new Promise((resolve) => {
          const g = globalThis as any;
          g.document.addEventListener('htmx:afterRequest', () => resolve(true), { once: true });
          g.htmx.trigger('#ticket-live', 'live:refresh');
        }),
    );
    await failed;
    expect(await ben.page.locator('[data-words="true"]').count()).toBe(0);
    s = await startServer(env);
    // Made at once, most likely before the page has reconnected: caught up on reconnect.
    await api('POST', `/tickets/${ticketId}/comment`, { body: 'Written while you were away', internal: true });
    await liveOpen(ben.page, T);
    await expect.poll(() => historyEntry(ben.page, 'Written while you were away').count(), poll).toBe(1);
    // And after it has.
    await api('POST', `/tickets/${ticketId}/comment`, { body: 'Written after the restart', internal: false });
    await expect.poll(() => historyEntry(ben.page, 'Written after the restart').count(), poll).toBe(1);
    await expectWholeHistoryOnce(ben.page);
    await expectWholeHistoryOnce(ann.page);
    expect(await ben.page.locator('#reply-body').inputValue()).toBe('Dear Carla, my draft');
  });
});

describe('the portal page, live', () => {
  it('shows the customer a public reply as it is written, never an internal note', async () => {
    const carla = (await api('GET', `/tickets/${ticketId}`)).requester_id as number;
    const link = await signedPath(s, { ticketId, userId: carla });
    const context = await browser.newContext({ baseURL: s.url, viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    await page.goto(link);
    await liveOpen(page, T);
    const messages = page.locator('#portal-history > li');
    const before = await messages.count();
    // Carla is writing: her reply box stays where it is as the reply comes in above it (decision 118;
    // a window shorter than the page, so there is room to scroll).
    await page.setViewportSize({ width: 360, height: 480 });
    const box = page.locator('#reply-body');
    await box.scrollIntoViewIfNeeded();
    await box.fill('Thank you, ');
    const writing = (await box.boundingBox())!;

    await api('POST', `/tickets/${ticketId}/comment`, { body: 'INTERNAL: she is on the watch list', internal: true });
    await api('POST', `/tickets/${ticketId}/comment`, { body: 'Carla, the new printer ships today.', internal: false });
    await expect.poll(() => messages.filter({ hasText: 'the new printer ships today' }).count(), poll).toBe(1);
    expect(await messages.count()).toBe(before + 1);
    expect(Math.abs((await box.boundingBox())!.y - writing.y)).toBeLessThan(1);
    expect(await box.inputValue()).toBe('Thank you, ');
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await page.content()).not.toContain('watch list');
    await screenshot(page, 'live-portal-360');
    await context.close();
  });
});
