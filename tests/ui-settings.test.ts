import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot, signedIn } from './helpers/browser.js';
import { signedPath } from './helpers/portal.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// The settings page and the queue form's watcher fields in a real Chromium, with and without
// JavaScript, against a real hxdesk.

const WAIT = 20_000;
const LONG = 120_000;
const PASSWORD = 'browser-password-123';

let s: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

async function agent(name: string) {
  const u = await s.user('agent');
  expect((await s.api('PATCH', `/users/${u.id}`, { body: { name, password: PASSWORD } })).status).toBe(200);
  return { ...u, name };
}

async function as(email: string, password: string, opts: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
  const { context, page } = await signedIn(browser, s.url, email, password, opts);
  context.setDefaultTimeout(WAIT);
  contexts.push(context);
  return page;
}

const settingsOf = async (token: string) => (await s.api('GET', '/settings', { token })).body;
const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: WAIT, interval: 100 });

beforeAll(async () => {
  s = await startServer();
  browser = await launchBrowser();
}, LONG);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await s?.close();
});

describe('the settings page in a browser', () => {
  it(
    'is reached from the user menu; a bad time zone is shown in place with what was typed kept; saving says so',
    async () => {
      const ann = await agent('Ann Browser');
      const page = await as(ann.email, PASSWORD);
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.waitForURL('**/settings');
      await page.getByRole('heading', { name: 'Your settings' }).waitFor();

      await page.getByLabel('Signature').fill('Cheers,\n{{ user.name }}');
      await page.getByLabel('Time zone').fill('Moon/Base');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      // Said once, next to the field (SPEC D6), in words: no raw key.
      const note = page.locator('#settings .field-error[data-field-error]');
      await note.getByText('"Moon/Base" is not a time zone').waitFor();
      expect(await page.getByLabel('Time zone').getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('#settings-error').innerText()).toBe('');
      expect(await page.getByLabel('Signature').inputValue()).toBe('Cheers,\n{{ user.name }}');
      expect((await settingsOf(ann.token)).signature).toBe('');

      await page.getByLabel('Time zone').fill('Pacific/Auckland');
      await page.getByLabel('Internal notes on tickets I own or watch').uncheck();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Saved.').waitFor();
      await screenshot(page, 'settings');
      await poll(() => settingsOf(ann.token)).toMatchObject({
        timezone: 'Pacific/Auckland',
        signature: 'Cheers,\n{{ user.name }}',
        notify_notes: false,
        notify_replies: true,
        notify_new_tickets: true,
      });
      // The page shows what is stored.
      expect(await page.getByLabel('Time zone').inputValue()).toBe('Pacific/Auckland');
      expect(await page.getByLabel('Internal notes on tickets I own or watch').isChecked()).toBe(false);
    },
    LONG,
  );

  it(
    'works without JavaScript: the password form changes the password',
    async () => {
      const bob = await agent('Bob NoScript');
      const page = await as(bob.email, PASSWORD, { javaScriptEnabled: false });
      await page.goto('/settings');
      await page.getByLabel('Current password').fill(PASSWORD);
      await page.locator('input[name="password"]').fill('a new browser password');
      await page.getByLabel('New password again').fill('a new browser password');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('Saved.').waitFor();
      await as(bob.email, 'a new browser password'); // signs in with it
    },
    LONG,
  );
});

describe('the queue form in a browser', () => {
  it(
    'sets Cc, AdminCc, keep_mail_cc and the queue signature',
    async () => {
      const carl = await agent('Carl Watcher');
      const q = await s.api('POST', '/queues', { body: { name: 'Browser queue' } });
      const page = await as(ADMIN_EMAIL, ADMIN_PASSWORD);
      await page.goto(`/queues/${q.body.id}`);
      await page.getByLabel(/^AdminCc/).fill(carl.email);
      await page.getByLabel(/^Cc/).fill('someone@customer.example');
      await page.getByLabel('People in To/Cc of new mail become Cc of its ticket').uncheck();
      await page.getByLabel('Queue signature').fill('The {{ queue.name }} team');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await poll(async () => (await s.api('GET', `/queues/${q.body.id}`)).body).toMatchObject({
        admin_cc: [carl.id],
        keep_mail_cc: false,
        signature: 'The {{ queue.name }} team',
        cc: [expect.any(Number)],
      });
      await page.goto(`/queues/${q.body.id}`);
      expect(await page.getByLabel(/^Cc/).inputValue()).toBe('someone@customer.example');
      // A requester as AdminCc is refused next to the form.
      await page.getByLabel(/^AdminCc/).fill('someone@customer.example');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.locator('#edit-queue-error').getByText('not an agent or administrator').first().waitFor();
      await screenshot(page, 'queue-watchers');
    },
    LONG,
  );
});

describe('new screens on a 360 px phone', () => {
  it(
    'the settings page and a portal page fit the screen, every control within it',
    async () => {
      const dee = await agent('Dee Phone');
      const requester = await s.user('requester');
      const t = await s.api('POST', '/tickets', {
        body: {
          queue_id: 1,
          subject: 'A rather long subject line that has to wrap on a phone',
          requesters: [requester.id],
          description: 'Words '.repeat(80),
        },
      });
      expect(t.status, t.text).toBe(201);
      const { context: desk } = await signedIn(browser, s.url, dee.email, PASSWORD);
      contexts.push(desk);
      const phone = await browser.newContext({
        baseURL: s.url,
        viewport: { width: 360, height: 740 },
        storageState: await desk.storageState(),
      });
      contexts.push(phone);
      const page = await phone.newPage();
      const fits = async () => {
        expect(
          await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number),
        ).toBeLessThanOrEqual(360);
        for (const el of await page.locator('input:visible, textarea:visible, select:visible, button:visible').all()) {
          const box = (await el.boundingBox())!;
          expect(box.x).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width).toBeLessThanOrEqual(360);
        }
      };
      await page.goto('/settings');
      await page.getByRole('heading', { name: 'Your settings' }).waitFor();
      await fits();
      // The two forms stack: the password card starts below the profile card, never over it.
      const [profile, password] = await page.locator('.settings .card').all();
      const a = (await profile.boundingBox())!;
      const b = (await password.boundingBox())!;
      expect(b.y).toBeGreaterThanOrEqual(a.y + a.height);
      await screenshot(page, 'settings-360');

      const link = await signedPath(s, { ticketId: t.body.ticket.id, userId: requester.id });
      const customer = await browser.newContext({ baseURL: s.url, viewport: { width: 360, height: 740 } });
      contexts.push(customer);
      const portal = await customer.newPage();
      await portal.goto(link);
      await portal.getByRole('heading', { name: /A rather long subject/ }).waitFor();
      expect(
        await portal.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number),
      ).toBeLessThanOrEqual(360);
      for (const el of await portal.locator('textarea:visible, button:visible, input:visible').all()) {
        const box = (await el.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(360);
      }
      await screenshot(portal, 'portal-360');
    },
    LONG,
  );
});
