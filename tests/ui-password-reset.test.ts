import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, screenshot } from './helpers/browser.js';
import { mailsTo, mailTo } from './helpers/notify.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { uniqueAddress } from './helpers/unique.js';

// Forgot password in a real Chromium (SPEC D6, docs/decisions/056), by keyboard only, at 1280 and
// 360 px: sign-in page → "Forgot password?" → the address → the mail's link (from a real SMTP
// sink) → the new password → signed in. Each screen is axe-clean; the HTTP side (both stores) is
// tests/password-reset.test.ts.

const WAIT = 20_000;
const LONG = 120_000;
const NEW = 'my new browser password 1';

let s: TestServer;
let sink: SmtpSink;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50', PASSWORD_RESET_MAX_PER_CLIENT: '1000' });
  browser = await launchBrowser();
}, LONG);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await s?.close();
  await sink?.close();
});

async function pageAt(width: number): Promise<Page> {
  const context = await browser.newContext({ baseURL: s.url, viewport: { width, height: 800 } });
  context.setDefaultTimeout(WAIT);
  contexts.push(context);
  return context.newPage();
}

/** Presses Tab until the focused element matches `selector` (at most 20 times), as a keyboard user gets there. */
async function tabTo(page: Page, selector: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((sel) => (globalThis as any).document.activeElement?.matches(sel) ?? false, selector))
      return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** axe-clean, nothing wider than the screen, and a screenshot to look at. */
async function checkScreen(page: Page, name: string, width: number): Promise<void> {
  const axe = await axeCheck(page);
  expect(axe.serious, axe.message).toEqual([]);
  const scrollWidth = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
  expect(scrollWidth, `${name} scrolls sideways at ${width} px`).toBeLessThanOrEqual(width);
  await screenshot(page, `password-reset-${name}-${width}`);
  fs.mkdirSync('/tmp', { recursive: true });
  await page.screenshot({ path: `/tmp/password-reset-${name}-${width}.png`, fullPage: true });
}

describe('forgot password in a browser, by keyboard', () => {
  for (const width of [1280, 360]) {
    it(
      `at ${width} px: sign-in → forgot → mail link → new password → signed in; the used link then says so`,
      async () => {
        const email = uniqueAddress(`reset ui ${width}`);
        const created = await s.api('POST', '/users', {
          body: { email, name: `Rita Reset ${width}`, role: 'agent', password: 'the old password 1' },
        });
        expect(created.status, created.text).toBe(201);
        const page = await pageAt(width);

        await page.goto('/login');
        await checkScreen(page, 'sign-in', width);
        await tabTo(page, 'a[href="/password-reset"]');
        await page.keyboard.press('Enter');
        await page.waitForURL('**/password-reset');
        await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
        await checkScreen(page, 'ask', width);

        // The address field has the focus: type it and send with Enter.
        expect(await page.evaluate(() => (globalThis as any).document.activeElement?.name)).toBe('email');
        await page.keyboard.type(email);
        await page.keyboard.press('Enter');
        await page.waitForURL('**/password-reset?sent');
        await page.getByRole('status').getByText('If that address belongs to an account').waitFor();
        await checkScreen(page, 'sent', width);

        const mail = await mailTo(sink, email);
        const link = /\/password-reset\/[A-Za-z0-9._-]+/.exec(mail.parsed.text ?? '')![0];
        await page.goto(link);
        await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        await page.getByText(email).waitFor();
        await checkScreen(page, 'choose', width);

        // A password too short first: told next to the field, the link still good.
        expect(await page.evaluate(() => (globalThis as any).document.activeElement?.name)).toBe('password');
        await page.evaluate(() => {
          for (const i of (globalThis as any).document.querySelectorAll('input[minlength]'))
            i.removeAttribute('minlength');
        }); // past the browser's own check, to see the server's words
        await page.keyboard.type('too short');
        await page.keyboard.press('Tab');
        await page.keyboard.type('too short');
        await page.keyboard.press('Enter');
        await page.locator('#password-error').getByText('At least 12 characters').waitFor();
        await checkScreen(page, 'too-short', width);

        await page.getByLabel('New password').focus();
        await page.keyboard.type(NEW);
        await page.keyboard.press('Tab');
        await page.keyboard.type(NEW);
        await page.keyboard.press('Enter');
        await page.waitForURL((u) => u.pathname === '/tickets');
        await page.getByText(`Rita Reset ${width}`).first().waitFor();
        await checkScreen(page, 'signed-in', width);
        expect(mailsTo(sink, email)).toHaveLength(1);

        // The link again: used up, a page saying so with the way to ask again.
        await page.goto(link);
        await page.getByRole('heading', { name: 'This link is no longer valid' }).waitFor();
        await checkScreen(page, 'used', width);
        await tabTo(page, 'a[href="/password-reset"]');
        await page.keyboard.press('Enter');
        await page.waitForURL('**/password-reset');
      },
      LONG,
    );
  }
});
