import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, okApi, startServer, type TestServer } from './helpers/server.js';

// SPEC D6 in Chromium (decision 055): the first-run checklist of an empty install; list rows that
// name the requester and a priority, as two lines without sideways scrolling at 360 px; the
// Status, Owner and Queue headers sorting from the keyboard; the ticket page's conversation
// before its properties on a phone, and the Customer panel. axe-clean at 1280 and 360 px.
// Screenshots: /tmp/lists-*.png.

const T = 20_000;
let s: TestServer;
let browser: Browser;
let page: Page;
const ids: Record<string, number> = {};
const api = <R = any>(method: string, path: string, body?: unknown) => okApi(s)<R>(method, path, body);

async function axeClean(p: Page, what: string) {
  const axe = await axeCheck(p);
  expect(axe.serious, `${what}: ${axe.message}`).toEqual([]);
}
async function noSideways(p: Page) {
  const sizes = await p.evaluate(() => {
    const d = (globalThis as any).document;
    const doc = d.documentElement;
    const box = d.querySelector('.table-scroll');
    return {
      page: [doc.scrollWidth, doc.clientWidth],
      box: box ? [box.scrollWidth, box.clientWidth] : [0, 0],
    };
  });
  expect(sizes.page[0], 'page scrolls sideways').toBeLessThanOrEqual(sizes.page[1]);
  expect(sizes.box[0], 'list scrolls sideways').toBeLessThanOrEqual(sizes.box[1]);
}

beforeAll(async () => {
  s = await startServer();
  browser = await launchBrowser();
  page = (await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD)).page;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe('D6 lists in the browser', () => {
  it('an empty install lands on what to do first, at 1280 and 360 px', async () => {
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto('/');
      const box = page.getByRole('region', { name: 'Getting started' });
      await box.waitFor({ timeout: T });
      await expect(box.getByRole('link', { name: 'Admin › Queues' }).getAttribute('href')).resolves.toBe('/queues');
      await expect(box.getByRole('link', { name: 'Admin › Users' }).getAttribute('href')).resolves.toBe('/users');
      expect(await box.locator('li[data-done="false"]').count()).toBe(3);
      await page.screenshot({ path: `/tmp/lists-first-run-${width}.png`, fullPage: true });
      await noSideways(page);
      await axeClean(page, `first run ${width}`);
    }
  }, 60_000);

  it('fixture: people, queues and tickets with long subjects', async () => {
    const user = async (email: string, name: string, role: string) =>
      (await api<{ id: number }>('POST', '/users', { email, name, role })).id;
    ids.zed = await user('zed@ours.example', 'Zed Agent', 'agent');
    ids.amy = await user('amy@ours.example', 'Amy Agent', 'agent');
    ids.alice = await user('alice.ames@acme.example', 'Alice Ames', 'requester');
    ids.carol = await user('carol.longaddress.of.someone@acme.example', '', 'requester');
    const general = (await api<{ queues: { id: number; name: string }[] }>('GET', '/queues')).queues[0].id;
    const billing = (await api<{ id: number }>('POST', '/queues', { name: 'Billing' })).id;
    const rows: [string, number, number, string, number | null, number][] = [
      ['The laptop does not start after the update that was installed last night', ids.alice, general, 'new', null, 0],
      [
        'Invoice 2026-0042 shows the wrong VAT rate for our Austrian subsidiary',
        ids.carol,
        billing,
        'open',
        ids.zed,
        80,
      ],
      ['Printer on the third floor prints blank pages', ids.alice, general, 'stalled', ids.amy, 0],
      ['Refund for the duplicate charge in March', ids.carol, billing, 'resolved', ids.amy, 20],
      ['VPN drops every few minutes when working from home', ids.alice, general, 'open', ids.zed, 0],
    ];
    for (const [subject, requester, queue, status, owner, priority] of rows) {
      const t = await api<{ ticket: { id: number } }>('POST', '/tickets', {
        subject,
        requester_id: requester,
        queue_id: queue,
        status,
        owner_id: owner,
        priority,
        description: 'Hello, could you please have a look? Thank you.',
      });
      ids[`t${Object.keys(ids).filter((k) => k.startsWith('t')).length + 1}`] = t.ticket.id;
    }
  });

  it('at 360 px each list row is two lines — subject and requester, status and time — with nothing off-screen', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await page.goto('/tickets');
    await page.locator('#tickets-table').waitFor({ timeout: T });
    await page.screenshot({ path: '/tmp/lists-list-360.png', fullPage: true });
    await noSideways(page);
    const rows = page.locator('#tickets-table tbody tr[data-id]');
    expect(await rows.count()).toBe(5);
    for (let i = 0; i < 5; i++) {
      const row = rows.nth(i);
      const first = await row.locator('.subject-line').boundingBox();
      const second = await row.locator('.row-second').boundingBox();
      const r = await row.boundingBox();
      expect(first && second && r).toBeTruthy();
      // Two lines, one under the other, both inside the screen.
      expect(second!.y).toBeGreaterThanOrEqual(first!.y + first!.height - 1);
      expect(first!.height).toBeLessThan(30);
      expect(second!.height).toBeLessThan(30);
      expect(r!.x + r!.width).toBeLessThanOrEqual(360);
      await expect(row.locator('.row-requester').isVisible()).resolves.toBe(true);
      await expect(row.locator('.row-second .row-status').isVisible()).resolves.toBe(true);
      await expect(row.locator('.row-second time').isVisible()).resolves.toBe(true);
    }
    // The other cells are not shown on a phone.
    await expect(rows.first().locator('td.num').isVisible()).resolves.toBe(false);
    const carol = page.locator(`tr[data-id="${ids.t2}"]`);
    await expect(carol.locator('.row-requester').innerText()).resolves.toContain('carol.longaddress');
    await expect(carol.locator('.priority-badge').innerText()).resolves.toContain('P80');
    await axeClean(page, 'list 360');
  }, 60_000);

  it('at 1280 px the row shows requester and priority beside the subject; the headers sort by keyboard', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/tickets');
    await page.locator('#tickets-table').waitFor({ timeout: T });
    const carol = page.locator(`tr[data-id="${ids.t2}"] td.subject`);
    await expect(carol.locator('.priority-badge').isVisible()).resolves.toBe(true);
    await expect(carol.locator('.row-requester').isVisible()).resolves.toBe(true);
    await expect(carol.locator('.row-second').isVisible()).resolves.toBe(false);
    await expect(page.locator(`tr[data-id="${ids.t1}"] .priority-badge`).count()).resolves.toBe(0);
    await page.screenshot({ path: '/tmp/lists-list-1280.png', fullPage: true });
    await axeClean(page, 'list 1280');

    const order = () =>
      page
        .locator('#tickets-table tbody tr[data-id]')
        .evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-id'))));
    const sortBy = async (column: string, expectUrl: RegExp) => {
      await page.locator(`th[data-column="${column}"] a`).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(expectUrl, { timeout: T });
      await page.locator(`th[data-column="${column}"][aria-sort]`).waitFor({ timeout: T });
    };
    await sortBy('Owner', /sort=owner/);
    await expect(page.locator('th[data-column="Owner"]').getAttribute('aria-sort')).resolves.toBe('ascending');
    // Amy's (t3, t4), Zed's (t2, t5), then the unowned t1.
    expect(await order()).toEqual([ids.t3, ids.t4, ids.t2, ids.t5, ids.t1]);
    await sortBy('Owner', /sort=-owner/);
    await expect(page.locator('th[data-column="Owner"]').getAttribute('aria-sort')).resolves.toBe('descending');
    expect(await order()).toEqual([ids.t5, ids.t2, ids.t4, ids.t3, ids.t1]);
    await sortBy('Status', /sort=status/);
    expect(await order()).toEqual([ids.t1, ids.t2, ids.t5, ids.t3, ids.t4]);
    await sortBy('Queue', /sort=queue/);
    expect(await order()).toEqual([ids.t2, ids.t4, ids.t1, ids.t3, ids.t5]);
    // The address is the state: a reload keeps the order.
    await page.reload();
    expect(await order()).toEqual([ids.t2, ids.t4, ids.t1, ids.t3, ids.t5]);
    await axeClean(page, 'sorted list 1280');
  }, 60_000);

  it('the ticket page shows the conversation before the properties at 360 px, and the Customer panel', async () => {
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`/tickets/${ids.t5}`);
      const history = page.locator('.ticket-main');
      const props = page.locator('.ticket-side .properties');
      await props.waitFor({ timeout: T });
      const h = (await history.boundingBox())!;
      const p = (await props.boundingBox())!;
      if (width === 360) expect(h.y + h.height).toBeLessThanOrEqual(p.y + 1);
      else expect(p.x).toBeGreaterThan(h.x + h.width - 1); // a side column
      const customer = page.getByRole('region', { name: 'Customer' });
      await expect(customer.getByRole('link', { name: /acme\.example/ }).getAttribute('href')).resolves.toBe(
        '/tickets?requester_domain=acme.example',
      );
      // Alice's other tickets: the active ones (t3 stalled, t1 new), newest first.
      const others = await customer
        .locator('li[data-id]')
        .evaluateAll((lis) => lis.map((li) => Number(li.getAttribute('data-id'))));
      expect(others).toEqual([ids.t3, ids.t1]);
      await page.screenshot({ path: `/tmp/lists-ticket-${width}.png`, fullPage: true });
      await noSideways(page);
      await axeClean(page, `ticket ${width}`);
    }
  }, 60_000);
});
