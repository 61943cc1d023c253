// SPEC D4 satisfaction (decision 082) in a real browser: the requester opens the rating link of
// the real "Resolved" mail (SMTP sink) in Debian's Chromium, at 360 px and on a desktop. The
// page is axe-clean, fits the screen, has `?rating=` pre-selected, records nothing by being
// opened, and is rated by keyboard alone (arrows in the radio group, Tab to the comment and the
// button, Enter); the thanks shows the choice, and staff see it on the ticket.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, screenshot } from './helpers/browser.js';
import { mailsFor, settle } from './helpers/notify.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';

const T = 20_000;
const LINK = /\/csat\/\d+\.\d+\.\d+\.\d+\.[A-Za-z0-9_-]{43}/;

let sink: SmtpSink;
let s: TestServer;
let browser: Browser;
let queueId: number;
let rq: { id: number; email: string };

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50' });
  browser = await launchBrowser();
  rq = await s.user('requester', 'ui-csat-requester@example.com');
  const q = await s.api('POST', '/queues', { body: { name: 'Rated', csat_enabled: true } });
  expect(q.status, q.text).toBe(201);
  queueId = q.body.id;
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await sink?.close();
});

/** A resolved ticket of the Rated queue and the rating link of its Resolved mail. */
async function resolvedWithLink(subject: string): Promise<{ id: number; link: string }> {
  const t = await s.api('POST', '/tickets', { body: { queue_id: queueId, subject, requester_id: rq.id } });
  expect(t.status, t.text).toBe(201);
  const id = t.body.ticket.id as number;
  expect((await s.api('PATCH', `/tickets/${id}`, { body: { status: 'resolved' } })).status).toBe(200);
  await settle(s, id);
  const mail = mailsFor(sink, id, rq.email).find((m) => /\bResolved: /.test(m.parsed.subject ?? ''));
  const link = LINK.exec(mail?.parsed.text ?? '')?.[0];
  if (!link) throw new Error(`no rating link for ticket ${id}`);
  return { id, link };
}

const noOverflow = (p: Page) =>
  p.evaluate(() => {
    const d = (globalThis as any).document.documentElement;
    return d.scrollWidth <= d.clientWidth;
  });

describe('the rating page in Chromium', () => {
  for (const [name, viewport] of [
    ['phone', { width: 360, height: 740 }],
    ['desktop', { width: 1280, height: 800 }],
  ] as const) {
    it(`${name}: pre-selected, axe-clean, fits, records nothing until sent; rated by keyboard`, async () => {
      const { id, link } = await resolvedWithLink(`Printer jam (${name})`);
      const context = await browser.newContext({ baseURL: s.url, viewport });
      const page = await context.newPage();
      try {
        await page.goto(`${link}?rating=okay`);
        await expect.poll(() => page.locator('h1').innerText(), { timeout: T }).toBe('How did we do?');
        expect(await page.locator('main').innerText()).toContain(`Printer jam (${name})`);
        const okay = page.getByRole('radio', { name: /^Okay/ });
        const bad = page.getByRole('radio', { name: /^Bad/ });
        expect(await okay.isChecked()).toBe(true);
        const axe = await axeCheck(page);
        expect(axe.serious, axe.message).toEqual([]);
        expect(await noOverflow(page)).toBe(true);
        await screenshot(page, `csat-${name}`);
        // Opening it recorded nothing.
        expect((await ticketOf(s, id)).csat).toBeNull();

        // Keyboard only: the radio group by arrows, Tab to the comment, Tab to the button, Enter.
        await okay.focus();
        await page.keyboard.press('ArrowDown');
        expect(await bad.isChecked()).toBe(true);
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('csat-comment');
        await page.keyboard.type('The toner light still blinks');
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent?.trim())).toBe(
          'Send rating',
        );
        await page.keyboard.press('Enter');
        const status = page.getByRole('status').filter({ hasText: 'Thank you' });
        await expect.poll(() => status.innerText(), { timeout: T }).toContain('“Bad”');
        expect(await bad.isChecked()).toBe(true);
        expect(await page.getByLabel('Comment (optional)').inputValue()).toBe('The toner light still blinks');
        const after = await axeCheck(page);
        expect(after.serious, after.message).toEqual([]);
        expect(await noOverflow(page)).toBe(true);

        expect((await ticketOf(s, id)).csat).toMatchObject({ rating: 'bad', comment: 'The toner light still blinks' });
        const entries = (await transactionsOf(s, id)).filter((t) => t.type === 'Rating');
        expect(entries.map((e) => [e.creator_id, e.new_value])).toEqual([[rq.id, 'bad']]);
      } finally {
        await context.close();
      }
    });
  }

  it('a reopened ticket’s link says so (410) with no form', async () => {
    const { id, link } = await resolvedWithLink('Reopened before rating');
    expect((await s.api('PATCH', `/tickets/${id}`, { body: { status: 'open' } })).status).toBe(200);
    const context = await browser.newContext({ baseURL: s.url, viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    try {
      const res = await page.goto(link);
      expect(res?.status()).toBe(410);
      expect(await page.locator('h1').innerText()).toBe('This request was reopened');
      expect(await page.getByRole('radio').count()).toBe(0);
      const axe = await axeCheck(page);
      expect(axe.serious, axe.message).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
