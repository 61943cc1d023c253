// The reply box in a real browser (SPEC C4): Debian's Chromium driven by playwright-core against a
// real hxdesk (real HTTP server, real SQLite file). Files by the picker, by drag and drop and by
// paste; a message over MAX_ATTACHMENT_BYTES refused under the box with its text kept; a canned
// response picked by typing its name, inserted, edited and sent with the status it sets. At
// 1280 px and once at 360 px (no horizontal scrolling).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer, okApi } from './helpers/server.js';

const T = 20_000;
const poll = { timeout: T, interval: 100 };
const MAX = 20_000; // MAX_ATTACHMENT_BYTES on this server

let s: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const api = <T = any>(method: string, path: string, body?: unknown) => okApi(s)<T>(method, path, body);

let seq = 0;
async function ticket(): Promise<number> {
  const t = await api('POST', '/tickets', {
    queue_id: 1,
    subject: `Reply box ${++seq}`,
    description: 'It smokes.',
    requesters: [`carla${seq}@customer.example`],
  });
  return t.ticket.id;
}

const history = (p: Page) => p.locator('#history');
const body = (p: Page) => p.locator('#reply-body');
const fileNames = (p: Page) =>
  p.evaluate(() =>
    [...((globalThis as any).document.querySelector('#reply-attachments').files as any[])].map((f) => f.name),
  );
const noHorizontalScroll = (p: Page) =>
  p.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);

/** Drops a file on the reply box as a person dragging it from the desktop would. */
const dropFile = (p: Page, name: string, text: string) =>
  p.evaluate(
    ([n, t]) => {
      const g = globalThis as any;
      const dt = new g.DataTransfer();
      dt.items.add(new g.File([t], n, { type: 'text/plain' }));
      const target = g.document.querySelector('#reply-body');
      target.dispatchEvent(new g.DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      return target.dispatchEvent(new g.DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    [name, text],
  );

/** Pastes an image into the message, as a screenshot copied to the clipboard is. */
const pasteImage = (p: Page) =>
  p.evaluate(() => {
    const g = globalThis as any;
    const dt = new g.DataTransfer();
    dt.items.add(new g.File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])], 'image.png', { type: 'image/png' }));
    return g.document
      .querySelector('#reply-body')
      .dispatchEvent(new g.ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  });

beforeAll(async () => {
  s = await startServer({ MAX_ATTACHMENT_BYTES: String(MAX) });
  browser = await launchBrowser();
  ({ context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD));
  await api('POST', '/responses', {
    name: 'Resolved: printer fixed',
    shared: true,
    set_status: 'resolved',
    body: 'Hello {{ ticket.requester.name }}, ticket #{{ ticket.id }} is fixed.',
  });
  await api('POST', '/responses', {
    name: 'Billing only',
    queue_id: (await api('POST', '/queues', { name: 'Billing' })).id,
    body: 'About your invoice',
  });
}, 60_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await s?.close();
});

// Each test is a browser walk of several steps, each waited for within T: the test as a whole gets longer.
describe('reply box at 1280 px', { timeout: 60_000 }, () => {
  it('files by picker, drag and drop and paste are listed, removable, sent and shown in the history', async () => {
    const id = await ticket();
    await page.goto(`/tickets/${id}`);
    await page.getByLabel('Attach files').setInputFiles([
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('picked file') },
      { name: 'unwanted.txt', mimeType: 'text/plain', buffer: Buffer.from('remove me') },
    ]);
    expect(await dropFile(page, 'dropped.log', 'dropped file')).toBe(false); // the browser did not open it
    expect(await pasteImage(page)).toBe(false);
    const names = await fileNames(page);
    expect(names.slice(0, 3)).toEqual(['notes.txt', 'unwanted.txt', 'dropped.log']);
    expect(names[3]).toMatch(/^pasted-\d{4}-\d\d-\d\d-\d+\.png$/);
    await expect.poll(() => page.locator('#reply-file-list li').count(), poll).toBe(4);
    await page.getByRole('button', { name: 'Remove unwanted.txt' }).click();
    expect((await fileNames(page)).slice(0, 2)).toEqual(['notes.txt', 'dropped.log']);
    await body(page).fill('Here are the files');
    await screenshot(page, 'reply-box-1280');
    await page.getByRole('button', { name: 'Send' }).click();
    const item = history(page).locator('li.txn', { hasText: 'Here are the files' });
    await expect.poll(() => item.count(), poll).toBe(1);
    expect(await item.locator('.attachments a').allInnerTexts()).toEqual(['notes.txt', 'dropped.log', names[3]]);
    // Sent: the text, the picker and the list are empty again.
    await expect.poll(() => fileNames(page), poll).toEqual([]);
    expect(await body(page).inputValue()).toBe('');
    expect(await page.locator('#reply-file-list li').count()).toBe(0);
    // The reply (a new → open entry may follow it: SPEC D6).
    const stored = (await api('GET', `/tickets/${id}/transactions`)).transactions.findLast(
      (t: any) => t.type === 'Correspond',
    );
    expect(stored.attachments.map((a: any) => [a.filename, a.size])).toEqual([
      ['notes.txt', 11],
      ['dropped.log', 12],
      [names[3], 7],
    ]);
  });

  it('a message whose files are over the limit is refused under the reply box, its text kept, nothing recorded', async () => {
    const id = await ticket();
    await page.goto(`/tickets/${id}`);
    const before = (await api('GET', `/tickets/${id}/transactions`)).transactions.length;
    await body(page).fill('This one is too big');
    await page
      .getByLabel('Attach files')
      .setInputFiles([{ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(MAX + 1, 1) }]);
    await page.getByRole('button', { name: 'Send' }).click();
    const error = page.locator('#reply-error');
    await expect.poll(() => error.innerText(), poll).toContain('may be sent with one message');
    expect(await body(page).inputValue()).toBe('This one is too big');
    expect(await fileNames(page)).toEqual(['big.bin']);
    const formBox = (await page.locator('#reply-body').boundingBox())!;
    expect((await error.boundingBox())!.y).toBeGreaterThan(formBox.y);
    await screenshot(page, 'reply-box-too-large-1280');
    expect((await api('GET', `/tickets/${id}/transactions`)).transactions.length).toBe(before);
  });

  it('a canned response typed by name is inserted, editable, and its status is set when the reply is sent', async () => {
    const id = await ticket();
    await page.goto(`/tickets/${id}`);
    // Only this queue's responses and all-queue ones are offered.
    const offered = await page.locator('#canned-responses option').evaluateAll((os) => os.map((o: any) => o.value));
    expect(offered).toEqual(['Resolved: printer fixed']);
    await body(page).fill('Hi! ');
    const picker = page.getByLabel('Canned response');
    await picker.fill('resolved: printer');
    await picker.press('Enter');
    const carla = (await api('GET', `/tickets/${id}`)).requesters[0];
    const person = await api('GET', `/users/${carla}`);
    await expect.poll(() => body(page).inputValue(), poll).toBe(`Hi! Hello ${person.name}, ticket #${id} is fixed.`);
    await expect
      .poll(() => page.locator('#reply-status-note').innerText(), poll)
      .toContain('Will set status to resolved');
    expect(await picker.inputValue()).toBe('');
    // The agent edits before sending; the body is focused after the insert.
    await page.keyboard.type(' Thanks for waiting.');
    await screenshot(page, 'reply-box-canned-1280');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(async () => (await api('GET', `/tickets/${id}`)).status, poll).toBe('resolved');
    const txns = (await api('GET', `/tickets/${id}/transactions`)).transactions;
    expect(txns.find((t: any) => t.type === 'Correspond').body).toContain(
      `Hello ${person.name}, ticket #${id} is fixed. Thanks for waiting.`,
    );
    await expect.poll(() => page.locator('#reply-status-note').isHidden(), poll).toBe(true);
    expect(await page.locator('#reply-set-status').inputValue()).toBe('');
    await expect.poll(() => page.locator('#ticket-head .status').innerText(), poll).toMatch(/resolved/i);
  });

  it('the status a response would set can be cleared before sending', async () => {
    const id = await ticket();
    await page.goto(`/tickets/${id}`);
    await page.getByLabel('Canned response').fill('Resolved: printer fixed');
    await page.getByRole('button', { name: 'Insert' }).click();
    await expect.poll(() => page.locator('#reply-status-note').isVisible(), poll).toBe(true);
    await page.getByRole('button', { name: 'Keep the status' }).click();
    expect(await page.locator('#reply-status-note').isHidden()).toBe(true);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect
      .poll(
        async () =>
          (await api('GET', `/tickets/${id}/transactions`)).transactions.some((t: any) => t.type === 'Correspond'),
        poll,
      )
      .toBe(true);
    expect((await api('GET', `/tickets/${id}`)).status).not.toBe('resolved');
  });
});

describe('reply box at 360 px', { timeout: 60_000 }, () => {
  it('fits the width; a file and a canned response still work', async () => {
    const narrow = await browser.newContext({
      baseURL: s.url,
      viewport: { width: 360, height: 740 },
      storageState: await context.storageState(),
    });
    try {
      const p = await narrow.newPage();
      const id = await ticket();
      await p.goto(`/tickets/${id}`);
      await p
        .getByLabel('Attach files')
        .setInputFiles([
          { name: 'a-file-with-a-rather-long-name-for-a-phone.txt', mimeType: 'text/plain', buffer: Buffer.from('x') },
        ]);
      await p.getByLabel('Canned response').fill('Resolved: printer fixed');
      await p.getByLabel('Canned response').press('Enter');
      await expect.poll(() => p.locator('#reply-body').inputValue(), poll).toContain(`ticket #${id} is fixed.`);
      expect(await noHorizontalScroll(p)).toBeLessThanOrEqual(360);
      await screenshot(p, 'reply-box-360');
      await p.getByRole('button', { name: 'Send' }).click();
      await expect.poll(async () => (await api('GET', `/tickets/${id}`)).status, poll).toBe('resolved');
      await expect
        .poll(() => p.locator('#history .attachments a').allInnerTexts(), poll)
        .toEqual(['a-file-with-a-rather-long-name-for-a-phone.txt']);
      expect(await noHorizontalScroll(p)).toBeLessThanOrEqual(360);
    } finally {
      await narrow.close();
    }
  });
});
