// SPEC C5 in a real browser (Debian's Chromium): agent A has "My open tickets" open while B
// changes tickets through the API. A's rows change in place (the sticky header, the columns and
// a dragged width untouched, a ticked row still ticked), a row that left the list is marked, a
// new ticket that would push the rows down waits behind "1 new ticket — Show", which loads it
// (by keyboard); the same at 360 px; a dashboard count follows, and a widget is not reloaded from
// under a pressed link (decision 119), nor a row's cell (decision 120).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, liveOpen, screenshot, signedIn } from './helpers/browser.js';
import { startServer, type TestServer, okApi } from './helpers/server.js';

const T = 15_000;
const poll = { timeout: T, interval: 100 };
const PASSWORD = 'live-list-password-123';

let s: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let agentId = 0;
let queueId = 0;
const mine: number[] = [];

const api = <T = any>(method: string, path: string, body?: unknown) => okApi(s)<T>(method, path, body);
const row = (id: number) => page.locator(`#tickets-table tbody tr[data-id="${id}"]`);
const rowIds = () =>
  page
    .locator('#tickets-table tbody tr[data-id]')
    .evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-id'))));
const widths = () =>
  page
    .locator('#tickets-table col[data-col]')
    .evaluateAll((cols) => cols.map((c) => `${c.getAttribute('data-col')}:${(c as any).style.width}`).join(' '));
const header = () => page.locator('#tickets-table thead').innerHTML();

beforeAll(async () => {
  s = await startServer();
  agentId = (
    await api('POST', '/users', { email: 'live@example.com', name: 'Liv Agent', role: 'agent', password: PASSWORD })
  ).id;
  const team = await api('POST', '/teams', { name: 'Live team' });
  await api('POST', `/teams/${team.id}/members`, { user_id: agentId });
  queueId = (await api('POST', '/queues', { name: 'Live queue', team_id: team.id })).id;
  for (let i = 0; i < 3; i++)
    mine.push(
      (
        await api('POST', '/tickets', {
          queue_id: queueId,
          subject: `Mine ${i + 1}`,
          owner_id: agentId,
          status: 'open',
        })
      ).ticket.id,
    );
  browser = await launchBrowser();
  ({ context, page } = await signedIn(browser, s.url, 'live@example.com', PASSWORD));
}, 120_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await s?.close();
});

describe('the live ticket list', () => {
  let dragged = '';
  let head = '';

  it('changes a row in place: the header, the widths and a ticked row untouched', async () => {
    await expect.poll(() => page.locator('h1').innerText(), poll).toBe('My open tickets');
    await liveOpen(page, T);
    // A width dragged (by keyboard) and a row ticked before anything changes.
    await page.getByRole('separator', { name: 'Resize Status' }).focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    dragged = await widths();
    expect(dragged).toContain('Status:190px'); // 150 px by default (the SLA badge), 4 × 10 px more
    await page.getByRole('checkbox', { name: `Select ticket #${mine[0]}`, exact: true }).check();
    head = await header();
    const order = await rowIds();

    await api('PATCH', `/tickets/${mine[1]}`, { status: 'stalled' });
    await expect.poll(() => row(mine[1]).locator('.status').innerText(), poll).toBe('Stalled');
    expect(await rowIds()).toEqual(order); // it did not move (newest-first would put it on top)
    expect(await widths()).toBe(dragged);
    expect(await header()).toBe(head);
    expect(await page.getByRole('checkbox', { name: `Select ticket #${mine[0]}`, exact: true }).isChecked()).toBe(true);
    expect(await page.locator('#bulk-count').innerText()).toBe('1 selected');
  });

  it('marks a row that left the list instead of taking it away', async () => {
    await api('PATCH', `/tickets/${mine[2]}`, { status: 'resolved' });
    await expect.poll(() => row(mine[2]).getAttribute('class'), poll).toContain('live-gone');
    expect(await row(mine[2]).innerText()).toContain('no longer in this list');
    expect(await row(mine[2]).locator('.status').innerText()).toBe('Resolved');
  });

  it('holds a new ticket behind "1 new ticket — Show", which loads it (keyboard), ticks and widths kept', async () => {
    const order = await rowIds();
    const created = (
      await api('POST', '/tickets', { queue_id: queueId, subject: 'Brand new', owner_id: agentId, status: 'open' })
    ).ticket.id as number;
    const bar = page.locator('[data-live-bar]');
    await expect.poll(() => bar.isVisible(), poll).toBe(true);
    expect(await bar.innerText()).toMatch(/1 new ticket\s+—\s+Show/);
    expect(await page.locator('[data-live-say]').innerText()).toContain('1 new ticket');
    expect(await rowIds()).toEqual(order); // nothing moved
    const axe = await axeCheck(page);
    expect(axe.serious, axe.message).toEqual([]);
    await screenshot(page, 'live-list-new-ticket-bar');

    await page.getByRole('button', { name: 'Show', exact: true }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(rowIds, poll).toEqual([created, mine[1], mine[0]]); // newest first; the resolved one gone
    expect(await bar.isVisible()).toBe(false);
    expect(await widths()).toBe(dragged);
    expect(await header()).toBe(head);
    expect(await page.getByRole('checkbox', { name: `Select ticket #${mine[0]}`, exact: true }).isChecked()).toBe(true);
    expect(new URL(page.url()).search).toBe('?owner_id=me&status_category=initial,active,waiting&snoozed=false');
  });

  it('works at 360 px: the bar fits, the page does not scroll sideways', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await api('POST', '/tickets', { queue_id: queueId, subject: 'Another one', owner_id: agentId, status: 'new' });
    const bar = page.locator('[data-live-bar]');
    await expect.poll(() => bar.isVisible(), poll).toBe(true);
    const box = (await bar.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      360,
    );
    await screenshot(page, 'live-list-360');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('updates a dashboard count', async () => {
    const d = await api('POST', '/dashboards', { name: 'Live board', widgets: [{ kind: 'status_counts' }] });
    await page.goto(`/dashboards/${d.id}`);
    await liveOpen(page, T);
    const openCount = () => page.locator('.widget .bar', { hasText: 'Open' }).locator('.num').innerText().then(Number);
    const before = await openCount();
    await api('POST', '/tickets', { queue_id: queueId, subject: 'Counted', status: 'open' });
    await expect.poll(openCount, poll).toBe(before + 1);
    await screenshot(page, 'live-dashboard');
  });

  it('does not reload a dashboard widget from under a pressed link: the release opens it', async () => {
    const d = await api('POST', '/dashboards', { name: 'Pressed board', widgets: [{ kind: 'status_counts' }] });
    await page.goto(`/dashboards/${d.id}`);
    await liveOpen(page, T);
    const link = page.locator('.widget .bar', { hasText: 'Open' }).locator('a');
    const openCount = () => page.locator('.widget .bar', { hasText: 'Open' }).locator('.num').innerText().then(Number);
    const href = (await link.getAttribute('href'))!;
    await link.scrollIntoViewIfNeeded();
    const at = (await link.boundingBox())!;
    const pressWhileATicketChanges = async (subject: string) => {
      await page.mouse.move(at.x + at.width / 2, at.y + at.height / 2);
      await page.mouse.down();
      const reloaded = page.waitForResponse((r) => r.url().includes(`/dashboards/${d.id}/widgets/`), { timeout: T });
      await api('POST', '/tickets', { queue_id: queueId, subject, status: 'open' });
      await reloaded;
    };
    // Pressed, then let go elsewhere (nothing opens): the count the reload brought comes in then.
    const before = await openCount();
    await pressWhileATicketChanges('Counted while pressed');
    expect(await openCount()).toBe(before);
    await page.mouse.move(at.x + at.width / 2, at.y + 200);
    await page.mouse.up();
    await expect.poll(openCount, poll).toBe(before + 1);
    // Pressed and let go on the link: it opens.
    await pressWhileATicketChanges('Counted while pressed again');
    await page.mouse.up();
    await page.waitForURL((u) => `${u.pathname}${u.search}` === href, { timeout: T });
  });

  it("does not change a row's cell from under a pressed link: the release opens the ticket", async () => {
    await page.goto(`/tickets?owner_id=${agentId}&status=open`);
    await liveOpen(page, T);
    const id = mine[0] as number;
    const link = row(id).locator('td.subject a').first();
    const subject = await link.innerText();
    await link.scrollIntoViewIfNeeded();
    const at = (await link.boundingBox())!;
    const pressWhileRenamed = async (to: string) => {
      await page.mouse.move(at.x + Math.min(20, at.width / 2), at.y + at.height / 2);
      await page.mouse.down();
      const asked = page.waitForResponse((r) => r.url().includes('live_ids='), { timeout: T });
      await api('PATCH', `/tickets/${id}`, { subject: to });
      await asked;
    };
    // Pressed, then let go elsewhere: the subject the change brought comes in then.
    await pressWhileRenamed('Renamed while pressed');
    expect(await link.innerText()).toBe(subject);
    await page.mouse.move(at.x, at.y + 300);
    await page.mouse.up();
    await expect.poll(() => link.innerText(), poll).toBe('Renamed while pressed');
    // Pressed and let go on the link: the ticket opens.
    await pressWhileRenamed('Renamed again while pressed');
    await page.mouse.up();
    await page.waitForURL((u) => u.pathname === `/tickets/${id}`, { timeout: T });
  });
});
