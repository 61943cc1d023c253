// Collision warnings in a real browser (SPEC C5, docs/decisions/038): agent A has a ticket open
// and writes a note with a file; B replies meanwhile (API). A's Send is refused: B's reply shows
// above the message box, A's text, file and kind are still there; "Send anyway" sends it once,
// the warning goes and the marker moves, so the next message without new mail goes straight through.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { historyEntry, launchBrowser, liveOpen, screenshot, signedIn } from './helpers/browser.js';
import { transactionsOf } from './helpers/reads.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

const T = 20_000;
const poll = { timeout: T, interval: 100 };

let s: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let b: { id: number; token: string };

beforeAll(async () => {
  s = await startServer();
  browser = await launchBrowser();
  ({ context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD));
  b = await s.user('agent');
}, 60_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await s?.close();
});

type Txn = { id: number; type: string; body: string | null; attachments: { filename: string }[] };
const history = (id: number) => transactionsOf<Txn>(s, id);
const warning = (p: Page) => p.locator('#reply-stale');
const marker = (p: Page) => p.locator('#reply-seen').getAttribute('value');

describe('a reply written while someone else answered', () => {
  it('is held with the new mail above it, the text kept, and sent once on "Send anyway"', async () => {
    const created = await s.api('POST', '/tickets', {
      body: {
        queue_id: 1,
        subject: 'Printer on fire',
        description: 'Smoke everywhere.',
        requesters: ['carla@customer.example'],
      },
    });
    const id = created.body.ticket.id as number;
    await page.goto(`/tickets/${id}`);
    const loaded = (await history(id)).at(-1)!.id;
    expect(await marker(page)).toBe(String(loaded));
    await expect.poll(() => warning(page).isVisible(), poll).toBe(false);

    await page.getByLabel('Internal note (owner and AdminCc only)').check();
    await page.locator('#reply-body').fill('Fire brigade called.\nDo not touch it.');
    await page
      .getByLabel('Attach files')
      .setInputFiles({ name: 'photo.txt', mimeType: 'text/plain', buffer: Buffer.from('a photo') });
    expect(
      (
        await s.api('POST', `/tickets/${id}/comment`, {
          token: b.token,
          body: { body: 'B: the technician is on his way', internal: false },
        })
      ).status,
    ).toBe(201);
    const before = await history(id);

    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => warning(page).textContent(), poll).toContain('B: the technician is on his way');
    // Above the message box, with the history's own rendering; the text, the file and the kind stay.
    const [warnBox, textBox] = await Promise.all([
      warning(page).boundingBox(),
      page.locator('#reply-body').boundingBox(),
    ]);
    expect(warnBox!.y + warnBox!.height).toBeLessThanOrEqual(textBox!.y);
    expect(await warning(page).locator('li.txn.txn-correspond .txn-what').textContent()).toMatch(/^Reply by agent /);
    expect(await page.locator('#reply-body').inputValue()).toBe('Fire brigade called.\nDo not touch it.');
    expect(
      await page.evaluate(() =>
        [...(globalThis as any).document.querySelector('#reply-attachments').files].map((f: any) => f.name),
      ),
    ).toEqual(['photo.txt']);
    expect(await page.getByLabel('Internal note (owner and AdminCc only)').isChecked()).toBe(true);
    expect(await page.locator('#reply-error').textContent()).toContain('Not sent yet');
    expect(await history(id)).toEqual(before);
    // The marker moved past what the warning shows (the agent has seen it now).
    expect(await marker(page)).toBe(String(before.at(-1)!.id));
    const axe = await axeCheck(page);
    expect(axe.serious, axe.message).toEqual([]);
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      360,
    );
    await screenshot(page, 'ticket-collision-warning-360');
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole('button', { name: 'Send anyway' }).click();
    await expect.poll(() => warning(page).isVisible(), poll).toBe(false);
    await expect
      .poll(
        async () =>
          (await history(id)).filter((t) => /^Fire brigade called\.\r?\nDo not touch it\.$/.test(t.body ?? '')).length,
        poll,
      )
      .toBe(1);
    const note = (await history(id)).at(-1)!;
    expect(note).toMatchObject({ type: 'Comment', attachments: [{ filename: 'photo.txt' }] });
    await expect.poll(() => page.locator(`#txn-${note.id}`).count(), poll).toBe(1);
    expect(await page.locator('#reply-body').inputValue()).toBe('');
    expect(await page.locator('#reply-error').textContent()).toBe('');
    expect(await marker(page)).toBe(String(note.id));
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('reply-body');

    // No new mail since: the next message goes straight through.
    await page.locator('input[name=internal][value=false]').check();
    await page.locator('#reply-body').fill('Update: fire is out.');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(async () => (await history(id)).at(-1)!.type, poll).toBe('Correspond');
    expect((await history(id)).at(-1)!.body).toMatch(/^Update: fire is out\./);
    await expect.poll(() => page.locator('#reply-body').inputValue(), poll).toBe('');
    expect(await warning(page).isVisible()).toBe(false);
    expect(await marker(page)).toBe(String((await history(id)).at(-1)!.id));
  }, 60_000);

  it('stays where it is while its writer is in it as live entries grow the history above it; a reader is not scrolled', async () => {
    const id = (
      await s.api('POST', '/tickets', {
        body: {
          queue_id: 1,
          subject: 'Lift stuck',
          description: 'Between two floors.',
          requesters: ['dan@customer.example'],
        },
      })
    ).body.ticket.id as number;
    const bReplies = async (body: string) =>
      expect(
        (await s.api('POST', `/tickets/${id}/comment`, { token: b.token, body: { body, internal: false } })).status,
      ).toBe(201);
    // Tall enough for the whole page, at the top: the browser's own scroll anchoring does nothing there.
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.goto(`/tickets/${id}`);
    await liveOpen(page, T);
    const send = page.getByRole('button', { name: 'Send', exact: true });

    // A reader (the focus and the pointer outside the reply box) at the top: the history's top
    // stays put, the entry comes in below what is read, and the page does not scroll.
    await page.mouse.move(5, 5);
    await bReplies('B: the engineer is called.\nHe will be there in an hour.\nPlease stay calm.');
    await expect.poll(() => historyEntry(page, 'the engineer is called').count(), poll).toBe(1);
    expect(await page.evaluate(() => (globalThis as any).window.scrollY)).toBe(0);

    // A writer: the text typed, the pointer pressing Send as B's next reply comes in live.
    await page.locator('#reply-body').fill('A: the fire brigade can open the doors.');
    const pressed = (await send.boundingBox())!;
    expect(pressed.y + pressed.height).toBeLessThan(1000);
    await page.mouse.move(pressed.x + pressed.width / 2, pressed.y + pressed.height / 2);
    await page.mouse.down();
    await bReplies('B: the engineer is on his way.\nStuck in traffic.\nTwenty minutes more.');
    await expect.poll(() => historyEntry(page, 'Stuck in traffic').count(), poll).toBe(1);
    const now = (await send.boundingBox())!;
    expect(Math.abs(now.y - pressed.y)).toBeLessThan(1);
    await page.mouse.up();
    // Sent (held as stale first: B's reply came after A's page was loaded), then sent anyway.
    await expect.poll(() => warning(page).textContent(), poll).toContain('Stuck in traffic');
    await page.getByRole('button', { name: 'Send anyway' }).click();
    await expect
      .poll(
        async () => (await history(id)).filter((t) => /fire brigade can open the doors/.test(t.body ?? '')).length,
        poll,
      )
      .toBe(1);

    // Typing (the focus in the box, the pointer away), the page at its top again: the box stays too.
    await page.setViewportSize({ width: 1280, height: 1600 });
    await page.evaluate(() => (globalThis as any).window.scrollTo(0, 0));
    await page.locator('#reply-body').fill('A: and the lift company?');
    await page.mouse.move(5, 5);
    const typing = (await page.locator('#reply-body').boundingBox())!;
    await bReplies('B: the lift company is informed.\nThey send a second engineer.\nBoth arrive soon.');
    await expect.poll(() => historyEntry(page, 'They send a second engineer').count(), poll).toBe(1);
    expect(Math.abs((await page.locator('#reply-body').boundingBox())!.y - typing.y)).toBeLessThan(1);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('reply-body');
    expect(await page.locator('#reply-body').inputValue()).toBe('A: and the lift company?');
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 60_000);
});
