// SPEC D2 on screen (decision 070), in Debian's Chromium: the lists' badge beside the status
// (grey "due in …", amber inside the warning window, red when breached), sorting by due from the
// Status header with the keyboard, the built-in list "Breached and due soon", and the ticket
// page's clocks (due, met, paused, missed) — at 1280 px and 360 px, axe-clean.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../src/domain/clock.js';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, screenshot, settled, signedIn } from './helpers/browser.js';
import { okApi, startServer, type TestServer } from './helpers/server.js';

const T = 20_000;
const poll = { timeout: T, interval: 100 };
const PASSWORD = 'sla-password-123';
const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const clock = testClock(T0);
const at = (min: number) => clock.set(T0 + min * 60_000);

let s: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let queueId = 0;
const ids: Record<'late' | 'soon' | 'later' | 'stalled' | 'done', number> = {
  late: 0,
  soon: 0,
  later: 0,
  stalled: 0,
  done: 0,
};

const api = <T = any>(method: string, path: string, body?: unknown) => okApi(s)<T>(method, path, body);
const addPolicy = (body: Record<string, unknown>) => api('POST', '/sla-policies', body);
const axeClean = async (p: Page, what: string) => {
  const axe = await axeCheck(p);
  expect(axe.serious, `${what}: ${axe.message}`).toEqual([]);
};
const noSideScroll = (p: Page) => p.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
const rowIds = (p: Page) =>
  p
    .locator('#tickets-table tbody tr[data-id]')
    .evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-id'))));
/** A row's badge in its Status cell (wide screens), or in the subject cell's second line (phones). */
const badge = (p: Page, id: number, where = '.status-cell') =>
  p.locator(`#tickets-table tr[data-id="${id}"] ${where} .sla-badge`);

beforeAll(async () => {
  s = await startServer({}, { clock });
  await api('POST', '/users', { email: 'sla-agent@example.com', name: 'Sol Agent', role: 'agent', password: PASSWORD });
  const rq = await api('POST', '/users', { email: 'sla-cust@example.com', name: 'Cleo Customer', role: 'requester' });
  queueId = (await api('POST', '/queues', { name: 'Support' })).id;
  await addPolicy({
    name: 'Standard support',
    position: 1,
    match: { queue_ids: [queueId] },
    calendar_id: null,
    first_response_minutes: 60,
    next_response_minutes: 30,
    resolution_minutes: 480,
    warn_before_minutes: 15,
  });
  const ticket = async (subject: string, extra: Record<string, unknown> = {}) =>
    (await api('POST', '/tickets', { queue_id: queueId, subject, requester_id: rq.id, ...extra })).ticket.id as number;
  at(0);
  ids.late = await ticket('Printer on fire');
  at(10);
  ids.soon = await ticket('Cannot log in');
  ids.later = await ticket('New laptop please');
  ids.stalled = await ticket('Waiting on the vendor');
  ids.done = await ticket('Fixed already', { status: 'resolved' });
  at(20);
  await api('POST', `/tickets/${ids.later}/comment`, { body: 'On it', internal: false });
  at(40);
  // A reply and then stalled: waiting on the vendor (a reply to a stalled ticket opens it).
  await api('POST', `/tickets/${ids.stalled}/comment`, { body: 'Asked the vendor', internal: false });
  await api('PATCH', `/tickets/${ids.stalled}`, { status: 'stalled' });
  // 10:62 → the late one breached (due 11:00), the soon one inside its window (due 11:10, warned 10:55).
  at(62);
  await s.workers.timers.runDue();
  browser = await launchBrowser();
  ({ context, page } = await signedIn(browser, s.url, 'sla-agent@example.com', PASSWORD));
}, 120_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await s?.close();
});

describe('SLA on screen', () => {
  it('lists carry a badge beside the status: red when breached, amber when due soon, grey otherwise', async () => {
    await page.goto(`/tickets?queue_id=${queueId}`);
    await settled(page);
    await expect.poll(() => badge(page, ids.late).innerText(), poll).toContain('overdue 2 min');
    expect(await badge(page, ids.late).getAttribute('class')).toBe('sla-badge sla-breached');
    expect(await badge(page, ids.late).getAttribute('title')).toBe('First response due 2026-12-01 11:00 UTC');
    expect(await badge(page, ids.soon).innerText()).toBe('due in 8 min');
    expect(await badge(page, ids.soon).getAttribute('class')).toBe('sla-badge sla-soon');
    expect(await badge(page, ids.later).innerText()).toBe('due in 7 h');
    expect(await badge(page, ids.later).getAttribute('class')).toBe('sla-badge sla-ok');
    // Its first response met, the stalled one's resolution paused: nothing due, no badge.
    expect(await badge(page, ids.stalled).count()).toBe(0);
    expect(await badge(page, ids.done).count()).toBe(0);
    // The badge sits in the Status column: the selectable columns stay the seven they were.
    const columns = await page
      .locator('#tickets-table thead th[data-column]')
      .evaluateAll((ths) => ths.map((th) => th.getAttribute('data-column')));
    expect(columns).toContain('Status');
    for (const c of columns) expect(['ID', 'Subject', 'Status', 'Queue', 'Owner', 'Created', 'Updated']).toContain(c);
    await screenshot(page, 'sla-list-1280');
    await axeClean(page, 'list');
  });

  it('sorts by due from the Status header, with the keyboard: soonest first, no due time last, then latest first', async () => {
    const due = page.getByRole('link', { name: /Sort by due time/ });
    await due.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('sort'), poll).toBe('due');
    await settled(page);
    await expect.poll(async () => (await rowIds(page)).slice(0, 3), poll).toEqual([ids.late, ids.soon, ids.later]);
    const order = await rowIds(page);
    expect(order.slice(0, 3)).toEqual([ids.late, ids.soon, ids.later]);
    expect(order.slice(3).sort()).toEqual([ids.stalled, ids.done].sort());
    expect(await page.locator('th[data-column="Status"]').getAttribute('aria-sort')).toBe('ascending');
    await page.getByRole('link', { name: /Sort by due time/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).searchParams.get('sort'), poll).toBe('-due');
    await settled(page);
    await expect.poll(async () => (await rowIds(page)).slice(0, 3), poll).toEqual([ids.later, ids.soon, ids.late]);
    expect(await page.locator('th[data-column="Status"]').getAttribute('aria-sort')).toBe('descending');
  });

  it('the built-in list "Breached and due soon" shows just those, soonest due first', async () => {
    await page.getByRole('link', { name: 'Breached and due soon' }).click();
    await page.waitForURL((u) => u.searchParams.get('sla') === 'breached,due_soon');
    await settled(page);
    await expect.poll(() => page.locator('h1').innerText(), poll).toBe('Breached and due soon');
    expect(await page.locator('nav.views a[aria-current="page"]').innerText()).toBe('Breached and due soon');
    await expect.poll(() => rowIds(page), poll).toEqual([ids.late, ids.soon]);
    await axeClean(page, 'breached list');
  });

  it('the ticket page shows each clock: overdue, due, met, paused and the time missed', async () => {
    await page.goto(`/tickets/${ids.late}`);
    const clocks = page.getByRole('region', { name: /Service level/ });
    await expect.poll(() => clocks.innerText(), poll).toContain('Standard support');
    const text = await clocks.innerText();
    expect(text).toMatch(/First response\s+Overdue 2 min · 2026-12-01 11:00/);
    expect(text).toMatch(/Resolution\s+Due in 6 h · 2026-12-01 18:00/);
    await screenshot(page, 'sla-ticket-1280');
    await axeClean(page, 'ticket');
    // A staff reply meets it late: met, and the due time it missed.
    await api('POST', `/tickets/${ids.late}/comment`, { body: 'Sorry for the wait', internal: false });
    await page.goto(`/tickets/${ids.late}`);
    await expect
      .poll(() => clocks.innerText(), poll)
      .toMatch(/First response\s+Met just now · missed 2026-12-01 11:00/);
    // The history names the breach.
    expect(await page.locator('#history').innerText()).toContain('First response breached (due 2026-12-01 11:00)');
    await page.goto(`/tickets/${ids.stalled}`);
    await expect.poll(() => clocks.innerText(), poll).toMatch(/Resolution\s+Paused while waiting/);
    expect(await clocks.innerText()).toMatch(/First response\s+Met 22 min ago/);
  });

  it('at 360 px: the list and the ticket page scroll no wider than the screen, axe-clean', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`/tickets?queue_id=${queueId}&sort=due`);
    await settled(page);
    await expect.poll(() => badge(page, ids.soon, '.row-second').innerText(), poll).toBe('due in 8 min');
    expect(await badge(page, ids.soon, '.row-second').isVisible()).toBe(true);
    expect(await noSideScroll(page)).toBeLessThanOrEqual(360);
    await screenshot(page, 'sla-list-360');
    await axeClean(page, 'list 360');
    await page.goto(`/tickets/${ids.soon}`);
    await expect.poll(() => page.getByRole('region', { name: /Service level/ }).count(), poll).toBe(1);
    expect(await noSideScroll(page)).toBeLessThanOrEqual(360);
    await screenshot(page, 'sla-ticket-360');
    await axeClean(page, 'ticket 360');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
