// SPEC D6 "Safe edits" and "Errors in words" in a real browser (decision 052): the subject is
// edited through an explicit control (Esc cancels, Enter saves; `n`, a note and Ctrl+Enter rename
// nothing); Take of a colleague's ticket asks "Take from <name>?"; a bulk change to deleted asks
// first; a deleted ticket says so at the top with Restore and no reply box; a refused field is said
// once, next to it, in words; a new result replaces the previous one. At 1280 px and at 360 px,
// with the keyboard alone, axe-clean; the same steps without JavaScript where they have a page.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, settled, signedIn } from './helpers/browser.js';
import { okApi, startServer, type TestServer } from './helpers/server.js';

const T = 20_000;
vi.setConfig({ testTimeout: 90_000 }); // a browser walk of several steps, each waited for within T
const poll = { timeout: T, interval: 100 };
const PASSWORD = 'safe-edits-password-1';

let s: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let me = 0;
let olga = 0;
let queueId = 0;

const api = <T = any>(method: string, path: string, body?: unknown) => okApi(s)<T>(method, path, body);
const ticket = (id: number) => api('GET', `/tickets/${id}`);
const txnTypes = async (id: number) =>
  ((await api('GET', `/tickets/${id}/transactions`)).transactions as { type: string }[]).map((t) => t.type);
const make = async (subject: string, extra: Record<string, unknown> = {}) =>
  (await api('POST', '/tickets', { queue_id: queueId, subject, ...extra })).ticket.id as number;
const shot = (p: Page, name: string) => p.screenshot({ path: `/tmp/safe-edits-${name}.png`, fullPage: true });
/** How many times the page's visible text says `text`. */
const timesSaid = async (p: Page, text: string) => (await p.locator('body').innerText()).split(text).length - 1;
const axeClean = async (p: Page) => {
  const r = await axeCheck(p);
  expect(r.serious, r.message).toEqual([]);
};

beforeAll(async () => {
  s = await startServer();
  me = (await api('POST', '/users', { email: 'sam@example.com', name: 'Sam Safe', role: 'agent', password: PASSWORD }))
    .id;
  olga = (await api('POST', '/users', { email: 'olga@example.com', name: 'Olga Owner', role: 'agent' })).id;
  queueId = (await api('POST', '/queues', { name: 'Safe queue' })).id;
  browser = await launchBrowser();
  ({ context, page } = await signedIn(browser, s.url, 'sam@example.com', PASSWORD));
}, 120_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await s?.close();
});

for (const width of [1280, 360]) {
  describe(`at ${width} px`, () => {
    beforeAll(async () => {
      await page.setViewportSize({ width, height: width > 400 ? 800 : 740 });
    });

    it('the subject changes only through Edit subject: `n` + a note + Ctrl+Enter renames nothing; Esc cancels; Enter saves', async () => {
      const subject = `Printer jammed (${width})`;
      const id = await make(subject);
      await page.goto(`/tickets/${id}`);
      const heading = page.getByRole('heading', { level: 1 });
      await expect.poll(() => heading.innerText(), poll).toContain(subject);
      expect(await page.locator('#prop-subject').isVisible()).toBe(false);

      // `n`, a note, Ctrl+Enter: a note, and the subject as it was.
      await page.locator('body').focus();
      await page.keyboard.press('n');
      await page.keyboard.type('Looked at the tray');
      await page.keyboard.press('Control+Enter');
      await page.locator('#history > li', { hasText: 'Looked at the tray' }).waitFor({ timeout: T });
      await settled(page);
      expect((await ticket(id)).subject).toBe(subject);
      expect(await txnTypes(id)).toEqual(['Create', 'Comment']);

      // Opening, cancelling and typing in the editor ask the server nothing: a page load answering
      // "Edit subject" (the link's no-JavaScript address) would replace the input under the typing.
      const asked: string[] = [];
      const onRequest = (r: { url(): string }) => {
        if (new URL(r.url()).pathname === `/tickets/${id}`) asked.push(r.url());
      };
      page.on('request', onRequest);

      // Edit subject, type, Esc: the subject as it was, focus back on the control.
      const edit = page.getByRole('button', { name: 'Edit subject' });
      await edit.focus();
      await page.keyboard.press('Enter');
      const input = page.getByRole('textbox', { name: 'Subject' });
      await expect
        .poll(() => input.evaluate((el) => el === (globalThis as any).document.activeElement), poll)
        .toBe(true);
      await page.keyboard.press('End');
      await page.keyboard.type(' — never mind');
      await axeClean(page);
      await shot(page, `subject-editing-${width}`);
      await page.keyboard.press('Escape');
      await expect.poll(() => input.isVisible(), poll).toBe(false);
      expect(await heading.innerText()).toContain(subject);
      expect(await heading.innerText()).not.toContain('never mind');
      await expect
        .poll(() => edit.evaluate((el) => el === (globalThis as any).document.activeElement), poll)
        .toBe(true);
      expect((await ticket(id)).subject).toBe(subject);

      // Edit subject again (Space this time): it opens with the subject as it is; Enter saves.
      await settled(page); // the live update the Esc let through (the head was left alone while in use)
      await page.keyboard.press(' ');
      await expect
        .poll(() => input.evaluate((el) => el === (globalThis as any).document.activeElement), poll)
        .toBe(true);
      expect(await input.inputValue()).toBe(subject);
      await page.keyboard.press('End');
      await page.keyboard.type(' in tray 2');
      page.off('request', onRequest);
      expect(asked).toEqual([]);
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await ticket(id)).subject, poll).toBe(`${subject} in tray 2`);
      await expect.poll(() => heading.innerText(), poll).toContain(`${subject} in tray 2`);
      expect(await input.isVisible()).toBe(false);
      expect(await txnTypes(id)).toEqual(['Create', 'Comment', 'SetSubject']);
    });

    it('Take of a colleague’s ticket asks "Take from Olga Owner?" first; the answer takes it (and opens it)', async () => {
      const id = await make(`Olga’s laptop (${width})`, { owner_id: olga });
      await page.goto(`/tickets/${id}`);
      const take = page.locator('.quick-actions').getByRole('button', { name: 'Take', exact: true });
      await take.focus();
      await page.keyboard.press('Enter');
      const confirm = page.getByRole('button', { name: 'Take from Olga Owner' });
      await confirm.waitFor({ timeout: T });
      expect(await page.getByText('Take from Olga Owner?').isVisible()).toBe(true);
      await expect
        .poll(() => confirm.evaluate((el) => el === (globalThis as any).document.activeElement), poll)
        .toBe(true);
      expect((await ticket(id)).owner_id).toBe(olga); // nothing changed by asking
      await axeClean(page);
      await shot(page, `take-from-${width}`);
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await ticket(id)).owner_id, poll).toBe(me);
      expect((await ticket(id)).status).toBe('open'); // SPEC D6: taking it up opens it
      await expect.poll(() => page.locator('#prop-owner_id').inputValue(), poll).toBe(String(me));
      expect(await page.getByText('Take from Olga Owner?').count()).toBe(0);
    });

    it('choosing myself as Owner of a colleague’s ticket asks too; Cancel puts the owner back', async () => {
      const id = await make(`Olga’s phone (${width})`, { owner_id: olga });
      await page.goto(`/tickets/${id}`);
      const owner = page.locator('#prop-owner_id');
      await owner.focus();
      await owner.selectOption(String(me));
      const cancel = page.locator('#err-owner_id').getByRole('button', { name: 'Cancel' });
      await cancel.waitFor({ timeout: T });
      expect(await page.locator('#err-owner_id').innerText()).toContain('Take from Olga Owner?');
      // The answer has the focus once the question is in; Tab reaches Cancel.
      const active = (l: typeof cancel) => l.evaluate((el) => el === (globalThis as any).document.activeElement);
      const confirm = page.locator('#err-owner_id').getByRole('button', { name: 'Take from Olga Owner' });
      await expect.poll(() => active(confirm), poll).toBe(true);
      await page.keyboard.press('Tab');
      expect(await active(cancel)).toBe(true);
      await page.keyboard.press('Enter');
      await expect.poll(() => owner.inputValue(), poll).toBe(String(olga));
      expect(await page.locator('#err-owner_id').innerText()).toBe('');
      expect((await ticket(id)).owner_id).toBe(olga);
    });

    it('a bulk change to deleted asks first, and a new result replaces the previous one', async () => {
      const a = await make(`Spam one (${width})`);
      const b = await make(`Spam two (${width})`);
      const keep = await make(`Keeper (${width})`);
      await page.goto(`/tickets?queue_id=${queueId}&status=new`);
      for (const id of [a, b]) {
        await page.getByRole('checkbox', { name: `Select ticket #${id}`, exact: true }).focus();
        await page.keyboard.press('Space');
      }
      await page.locator('#bulk-form select[name="changes.status"]').selectOption('deleted');
      await page.locator('#bulk-form').getByRole('button', { name: 'Apply' }).focus();
      await page.keyboard.press('Enter');
      const yes = page.getByRole('button', { name: 'Delete 2 tickets' });
      await yes.waitFor({ timeout: T });
      await expect.poll(() => yes.evaluate((el) => el === (globalThis as any).document.activeElement), poll).toBe(true);
      expect((await ticket(a)).status).toBe('new'); // asking changed nothing
      await axeClean(page);
      await shot(page, `bulk-delete-question-${width}`);
      await page.keyboard.press('Enter');
      await expect
        .poll(async () => [(await ticket(a)).status, (await ticket(b)).status], poll)
        .toEqual(['deleted', 'deleted']);
      const result = page.locator('#bulk-error');
      await expect.poll(() => result.innerText(), poll).toBe('Changed 2 tickets');

      // A refused value next: its words replace "Changed 2 tickets", said once.
      await page.getByRole('checkbox', { name: `Select ticket #${keep}`, exact: true }).focus();
      await page.keyboard.press('Space');
      const priority = page.locator('#bulk-form input[name="changes.priority"]');
      await priority.focus();
      await page.keyboard.type('150');
      await page.locator('#bulk-form').getByRole('button', { name: 'Apply' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => result.innerText(), poll).toBe('Priority must be between 0 and 100');
      expect(await timesSaid(page, 'Priority must be between 0 and 100')).toBe(1);
      expect(await timesSaid(page, 'Changed 2 tickets')).toBe(0);
      expect(await priority.getAttribute('aria-invalid')).toBe('true');
      expect(await priority.getAttribute('aria-describedby')).toContain('bulk-error');
      await axeClean(page);
      await shot(page, `bulk-error-replaces-${width}`);
      expect((await ticket(keep)).priority).toBe(0);
    });

    it('a deleted ticket says so at the top, has no reply box, and Restore gives back the status it had', async () => {
      const id = await make(`Deleted by mistake (${width})`);
      await api('PATCH', `/tickets/${id}`, { status: 'stalled' });
      await api('PATCH', `/tickets/${id}`, { status: 'deleted' });
      await page.goto(`/tickets/${id}`);
      const banner = page.locator('.deleted-banner');
      await banner.waitFor({ timeout: T });
      expect(await banner.innerText()).toContain('This ticket is deleted');
      expect(await page.locator('#reply-form').count()).toBe(0);
      // At the top: above the history.
      const [bannerTop, historyTop] = await Promise.all([
        banner.evaluate((el) => el.getBoundingClientRect().top),
        page.locator('#history').evaluate((el) => el.getBoundingClientRect().top),
      ]);
      expect(bannerTop).toBeLessThan(historyTop);
      await axeClean(page);
      await shot(page, `deleted-banner-${width}`);
      await banner.getByRole('button', { name: 'Restore' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await ticket(id)).status, poll).toBe('stalled');
      await page.locator('#reply-form').waitFor({ timeout: T });
      expect(await page.locator('.deleted-banner').count()).toBe(0);
    });

    it('a refused property is said once, next to it, in words; the next answer clears it', async () => {
      const id = await make(`Priority words (${width})`);
      await page.goto(`/tickets/${id}`);
      const field = page.locator('#prop-priority');
      const err = page.locator('#err-priority');
      // The browser refuses it first (max=100): our words, not the browser's.
      await field.focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('150');
      await page.keyboard.press('Tab');
      await expect.poll(() => err.innerText(), poll).toBe('Priority must be between 0 and 100');
      expect(await timesSaid(page, 'Priority must be between 0 and 100')).toBe(1);
      // The server's refusal, for a value the page did not stop (its limit taken off): the same words, once.
      await field.evaluate((el) => el.removeAttribute('max'));
      await field.focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('101');
      await page.keyboard.press('Tab');
      await expect
        .poll(() => err.locator('[data-field="priority"]').getAttribute('data-message'), poll)
        .toBe('Priority must be between 0 and 100');
      await settled(page);
      expect(await timesSaid(page, 'Priority must be between 0 and 100')).toBe(1);
      expect(await page.locator('body').innerText()).not.toMatch(/Too big|expected number|<=100|priority:/);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await field.getAttribute('aria-describedby')).toContain('err-priority');
      await axeClean(page);
      await shot(page, `field-error-${width}`);
      await field.focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('7');
      await page.keyboard.press('Tab');
      await expect.poll(async () => (await ticket(id)).priority, poll).toBe(7);
      await expect.poll(() => err.innerText(), poll).toBe('');
    });
  });
}

describe('without JavaScript', () => {
  let plain: { context: BrowserContext; page: Page };
  beforeAll(async () => {
    plain = await signedIn(browser, s.url, 'sam@example.com', PASSWORD, { javaScriptEnabled: false });
  });
  afterAll(async () => {
    await plain?.context.close();
  });

  it('Edit subject is a link to the page with the form open; Save renames', async () => {
    const p = plain.page;
    const id = await make('No-JS subject');
    await p.goto(`/tickets/${id}`);
    await p.getByRole('button', { name: 'Edit subject' }).focus();
    await p.keyboard.press('Enter');
    await p.waitForURL(/edit=subject/);
    const input = p.getByRole('textbox', { name: 'Subject' });
    expect(await input.isVisible()).toBe(true);
    await input.fill('No-JS subject, renamed');
    await p.keyboard.press('Enter');
    await p.waitForURL((u) => !u.search.includes('edit='));
    expect((await ticket(id)).subject).toBe('No-JS subject, renamed');
  });

  it('Take from a colleague is a question page; Cancel changes nothing, the answer takes it', async () => {
    const p = plain.page;
    const id = await make('No-JS take', { owner_id: olga });
    await p.goto(`/tickets/${id}`);
    await p.locator('.quick-actions').getByRole('button', { name: 'Take', exact: true }).focus();
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'Take from Olga Owner?' }).waitFor({ timeout: T });
    expect((await ticket(id)).owner_id).toBe(olga);
    // Cancel: back to the ticket, nothing changed; then Take again, and the answer.
    await p.getByRole('link', { name: 'Cancel' }).focus();
    await p.keyboard.press('Enter');
    await p.locator('#properties').waitFor({ timeout: T });
    expect((await ticket(id)).owner_id).toBe(olga);
    await p.locator('.quick-actions').getByRole('button', { name: 'Take', exact: true }).focus();
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'Take from Olga Owner?' }).waitFor({ timeout: T });
    await shot(p, 'take-from-nojs');
    await p.getByRole('button', { name: 'Take from Olga Owner' }).focus();
    await p.keyboard.press('Enter');
    await p.locator('#properties').waitFor({ timeout: T });
    expect((await ticket(id)).owner_id).toBe(me);
  });

  it('a bulk delete is a question page carrying the change', async () => {
    const p = plain.page;
    const id = await make('No-JS spam');
    await p.goto(`/tickets?queue_id=${queueId}&q=${encodeURIComponent('No-JS spam')}`);
    await p.getByRole('checkbox', { name: `Select ticket #${id}`, exact: true }).focus();
    await p.keyboard.press('Space');
    await p.locator('#bulk-form select[name="changes.status"]').selectOption('deleted');
    await p.locator('#bulk-form').getByRole('button', { name: 'Apply' }).focus();
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: `Delete ticket #${id}?` }).waitFor({ timeout: T });
    expect((await ticket(id)).status).toBe('new');
    await shot(p, 'bulk-delete-nojs');
    await p.getByRole('button', { name: `Delete ticket #${id}` }).focus();
    await p.keyboard.press('Enter');
    await p.waitForURL(/\/tickets\?/);
    expect((await ticket(id)).status).toBe('deleted');
    expect(await p.locator('#bulk-error').innerText()).toBe('Changed 1 ticket');
  });
});

describe('a new result replaces the old one on a settings page', () => {
  it('"Saved." goes when the next save is refused; the refusal is said once, next to its field', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/settings');
    const zone = page.getByLabel('Time zone');
    await zone.fill('Europe/Berlin');
    await page.getByRole('button', { name: 'Save', exact: true }).first().focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor({ timeout: T });
    await zone.fill('Moon/Base');
    await page.getByRole('button', { name: 'Save', exact: true }).first().focus();
    await page.keyboard.press('Enter');
    const words = '"Moon/Base" is not a time zone';
    await expect.poll(() => timesSaid(page, words), poll).toBe(1);
    expect(await page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(0);
    expect(await zone.getAttribute('aria-invalid')).toBe('true');
    await axeClean(page);
    await shot(page, 'settings-refused');
  });
});
