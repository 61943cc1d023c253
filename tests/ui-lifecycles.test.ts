import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, screenshot, settled, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// SPEC D3 lifecycles in Chromium (decision 073): the editor refuses a fault next to its field and
// keeps what was typed; a queue takes a lifecycle from its page; a ticket's status menu offers
// only the allowed targets and its badge shows the lifecycle's color; keyboard only, at 1280 and
// 360 px, axe-clean.

const T = 20_000;
const LONG = 120_000;
let s: TestServer;
let browser: Browser;
let queueId: number;
let lifecycleId: number;

const active = (p: Page) =>
  p.evaluate(() => {
    const el = (globalThis as any).document.activeElement as any;
    return { name: el?.getAttribute('name') ?? '', text: (el?.innerText ?? '').trim() };
  });
async function tabTo(p: Page, match: (a: { name: string; text: string }) => boolean) {
  for (let i = 0; i < 80; i++) {
    await p.keyboard.press('Tab');
    if (match(await active(p))) return;
  }
  throw new Error(`never reached by Tab; last: ${JSON.stringify(await active(p))}`);
}
async function describedBy(p: Page, sel: string) {
  const ids = ((await p.locator(sel).getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
  return (await Promise.all(ids.map((id) => p.locator(`#${id}`).innerText()))).join(' ').trim();
}
async function admin() {
  const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
  context.setDefaultTimeout(T);
  page.on('dialog', (d) => void d.accept());
  return { context, page };
}

beforeAll(async () => {
  s = await startServer();
  queueId = (await s.api('POST', '/queues', { body: { name: 'Repairs' } })).body.id;
  const l = await s.api('POST', '/lifecycles', {
    body: {
      name: 'Hardware',
      statuses: [
        { name: 'reported', category: 'initial', color: '#1d4ed8' },
        { name: 'diagnosing', category: 'active', color: '#15803d' },
        { name: 'waiting_on_parts', category: 'waiting', color: '#b45309' },
        { name: 'repaired', category: 'inactive', color: '#7c3aed' },
      ],
      transitions: {
        reported: ['diagnosing'],
        diagnosing: ['waiting_on_parts', 'repaired'],
        waiting_on_parts: ['diagnosing'],
        repaired: ['diagnosing'],
      },
    },
  });
  expect(l.status, l.text).toBe(201);
  lifecycleId = l.body.id;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe('lifecycles in the browser', () => {
  it(
    'keyboard only: a duplicate status is refused next to its field, then saved; a queue takes the lifecycle',
    async () => {
      const { context, page } = await admin();
      await page.goto('/queues');
      await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Lifecycles' }).click();
      await page.waitForURL('**/lifecycles');
      expect(await page.locator('tbody tr').first().innerText()).toContain('Hardware');
      expect((await axeCheck(page)).message).toBe('');
      await screenshot(page, 'lifecycles');

      await page.goto(`/lifecycles/${lifecycleId}`);
      await settled(page);
      // The transitions grid: reported may go to diagnosing only.
      expect(await page.getByRole('checkbox', { name: 'reported to diagnosing' }).isChecked()).toBe(true);
      expect(await page.getByRole('checkbox', { name: 'reported to repaired' }).isChecked()).toBe(false);
      await tabTo(page, (a) => a.name === 'statuses.4.name');
      await page.keyboard.type('diagnosing');
      await tabTo(page, (a) => a.text === 'Save');
      await page.keyboard.press('Enter');
      const field = '#edit-lifecycle [name="statuses.4.name"]';
      await expect.poll(() => describedBy(page, field)).toContain('Status "diagnosing" is named twice');
      expect(await page.locator(field).getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator(field).inputValue()).toBe('diagnosing');
      expect((await axeCheck(page)).message).toBe('');
      await screenshot(page, 'lifecycle-error');

      await page.locator(field).focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('scrapped');
      await page.locator('#edit-lifecycle [name="statuses.4.category"]').focus();
      await page.keyboard.press('End'); // inactive, the last category
      await tabTo(page, (a) => a.text === 'Save');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/lifecycles\/\d+\?saved$/);
      const saved = (await s.api('GET', `/lifecycles/${lifecycleId}`)).body;
      expect(saved.statuses.map((x: any) => `${x.name}:${x.category}`)).toEqual([
        'reported:initial',
        'diagnosing:active',
        'waiting_on_parts:waiting',
        'repaired:inactive',
        'scrapped:inactive',
      ]);
      expect(saved.transitions.reported).toEqual(['diagnosing']);

      // The queue's page: its lifecycle chosen with the keyboard.
      await page.goto(`/queues/${queueId}`);
      await page.locator('#edit-queue [name="lifecycle_id"]').focus();
      await page.keyboard.press('End');
      await tabTo(page, (a) => a.text === 'Save');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/queues\/\d+\?saved$/);
      expect((await s.api('GET', `/queues/${queueId}`)).body.lifecycle_id).toBe(lifecycleId);
      expect((await axeCheck(page)).message).toBe('');
      await context.close();
    },
    LONG,
  );

  it(
    "a ticket's status menu offers only allowed targets; its badge wears the lifecycle's color; 360 px",
    async () => {
      const t = (await s.api('POST', '/tickets', { body: { queue_id: queueId, subject: 'Fan noise' } })).body.ticket;
      expect(t.status).toBe('reported');
      const { context, page } = await admin();
      await page.goto(`/tickets/${t.id}`);
      await settled(page);
      const options = () => page.locator('#prop-status option').allInnerTexts();
      expect(await options()).toEqual(['Reported', 'Diagnosing']);
      const badge = page.locator('#ticket-head .status');
      expect(await badge.innerText()).toBe('Reported');
      expect(await badge.evaluate((el) => (globalThis as any).getComputedStyle(el).boxShadow as string)).toContain(
        'rgb(29, 78, 216)',
      );
      expect((await axeCheck(page)).message).toBe('');
      await screenshot(page, 'lifecycle-ticket');

      await page.locator('#prop-status').focus();
      await page.keyboard.press('ArrowDown'); // Diagnosing (the select changes on its own)
      await expect.poll(async () => (await s.api('GET', `/tickets/${t.id}`)).body.status).toBe('diagnosing');
      await page.reload();
      await settled(page);
      expect(await options()).toEqual(['Diagnosing', 'Waiting on parts', 'Repaired']);
      expect(await page.getByRole('button', { name: 'Resolve' }).count()).toBe(1);

      await page.setViewportSize({ width: 360, height: 740 });
      for (const [path, name] of [
        [`/tickets/${t.id}`, 'lifecycle-ticket-360'],
        ['/lifecycles', 'lifecycles-360'],
        [`/lifecycles/${lifecycleId}`, 'lifecycle-360'],
      ]) {
        await page.goto(path);
        await settled(page);
        expect(
          await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number),
          path,
        ).toBeLessThanOrEqual(360);
        expect((await axeCheck(page)).message, path).toBe('');
        await screenshot(page, name);
      }
      await context.close();
    },
    LONG,
  );
});
