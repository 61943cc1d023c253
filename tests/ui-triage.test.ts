// Triage at speed (SPEC C4) in a real browser: Debian's Chromium driven by playwright-core
// against a real hxdesk. Rows ticked one by one and all at once, a bulk resolve with its summary
// and the list refreshed in place, Take and Resolve on the ticket page, the staff landing page,
// at 1280 px and on a 360 px phone, and steps done with the keyboard alone.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, settled, signedIn } from './helpers/browser.js';
import { startServer, type TestServer, okApi } from './helpers/server.js';

const T = 20_000;
const poll = { timeout: T, interval: 100 };
const PASSWORD = 'triage-password-123';

let s: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let agentId = 0;
let queueId = 0;
const mine: number[] = [];

const api = <T = any>(method: string, path: string, body?: unknown) => okApi(s)<T>(method, path, body);
const rowBox = (p: Page, id: number) => p.getByRole('checkbox', { name: `Select ticket #${id}`, exact: true });
const count = (p: Page) => p.locator('#bulk-count').innerText();
/** The page's width, and what sticks out past 360 px (outside the table's own scroll box) when it is wider. */
const noSideScroll = async (p: Page) => {
  const { width, wide } = await p.evaluate(() => {
    const d = (globalThis as any).document;
    const wide: string[] = [];
    for (const el of d.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.right > 361 && !el.closest('.table-scroll'))
        wide.push(`${el.tagName.toLowerCase()}.${el.className}#${el.id} ${Math.round(r.left)}–${Math.round(r.right)}`);
    }
    return { width: d.documentElement.scrollWidth as number, wide: wide.slice(0, 10) };
  });
  if (width > 360) console.log(wide.join('\n'));
  return width;
};

beforeAll(async () => {
  s = await startServer();
  const agent = await api('POST', '/users', {
    email: 'tria@example.com',
    name: 'Tria Agent',
    role: 'agent',
    password: PASSWORD,
  });
  agentId = agent.id;
  const rq = await api('POST', '/users', { email: 'cust@example.com', name: 'Cust Omer', role: 'requester' });
  const team = await api('POST', '/teams', { name: 'Triage team' });
  await api('POST', `/teams/${team.id}/members`, { user_id: agentId });
  queueId = (await api('POST', '/queues', { name: 'Triage queue', team_id: team.id })).id;
  for (let i = 0; i < 4; i++) {
    mine.push(
      (
        await api('POST', '/tickets', {
          queue_id: queueId,
          subject: `Mine ${i + 1}`,
          owner_id: agentId,
          status: 'open',
          requester_id: rq.id,
        })
      ).ticket.id,
    );
  }
  await api('POST', '/tickets', { queue_id: queueId, subject: 'Nobody’s yet', requester_id: rq.id });
  browser = await launchBrowser();
  ({ context, page } = await signedIn(browser, s.url, 'tria@example.com', PASSWORD));
}, 120_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await s?.close();
});

describe('triage', () => {
  it('lands on My open tickets after signing in, marked as the current list', async () => {
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(
      '/tickets?owner_id=me&status_category=initial,active,waiting&snoozed=false',
    );
    await expect.poll(() => page.locator('h1').innerText(), poll).toBe('My open tickets');
    expect(await page.locator('nav.views a[aria-current="page"]').innerText()).toBe('My open tickets');
    expect(await page.locator('#tickets-table tbody tr').count()).toBe(4);
  });

  it('ticks rows (the count and Apply follow), ticks all on the page, and resolves them in bulk with a summary', async () => {
    const apply = page.locator('#bulk-form').getByRole('button', { name: 'Apply' });
    await expect.poll(() => apply.isDisabled(), poll).toBe(true);
    expect(await count(page)).toBe('0 selected');
    await page.locator('#tickets-table tbody input[name="ids"]').first().check();
    await expect.poll(() => count(page), poll).toBe('1 selected');
    expect(await apply.isDisabled()).toBe(false);
    // Keyboard only: from the first row's checkbox, Tab (past the row's links) to the next row's; Space ticks it.
    const boxes = page.locator('#tickets-table tbody input[name="ids"]');
    const second = await boxes.nth(1).getAttribute('aria-label');
    await boxes.first().focus();
    if (!(await boxes.first().isChecked())) await page.keyboard.press('Space');
    let reached = false;
    for (let i = 0; i < 6 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached =
        (await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label') ?? '')) ===
        second;
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Space');
    await expect.poll(() => count(page), poll).toBe('2 selected');
    const all = page.getByRole('checkbox', { name: 'Select all tickets on this page' });
    await all.check();
    await expect.poll(() => count(page), poll).toBe('4 selected');
    await all.uncheck();
    await expect.poll(() => count(page), poll).toBe('0 selected');
    await all.check();
    await screenshot(page, 'triage-list-1280');
    await page.locator('#bulk-form select[name="changes.status"]').selectOption('resolved');
    await apply.click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Changed' }).innerText(), poll)
      .toBe('Changed 4 tickets');
    await settled(page);
    // The list is the same list (its query string kept), now without the resolved tickets.
    expect(new URL(page.url()).searchParams.get('owner_id')).toBe('me');
    await expect.poll(() => page.locator('#tickets-table tbody td.empty').count(), poll).toBe(1);
    for (const id of mine) expect((await api('GET', `/tickets/${id}`)).status).toBe('resolved');
    await screenshot(page, 'triage-list-summary-1280');
  });

  it('Take and Resolve on the ticket page, each one click; Resolve reached and pressed with the keyboard', async () => {
    const id = (await api('POST', '/tickets', { queue_id: queueId, subject: 'Take this one' })).ticket.id;
    await page.goto(`/tickets/${id}`);
    const props = page.locator('#properties');
    await props.getByRole('button', { name: 'Take' }).click();
    await expect.poll(() => props.getByRole('button', { name: 'Take' }).count(), poll).toBe(0);
    await expect
      .poll(() => page.locator('#history').innerText(), poll)
      .toContain('Owner changed from Unassigned to Tria Agent');
    expect((await api('GET', `/tickets/${id}`)).owner_id).toBe(agentId);
    const resolve = props.getByRole('button', { name: 'Resolve' });
    await resolve.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => props.getByRole('button', { name: 'Resolve' }).count(), poll).toBe(0);
    await expect.poll(async () => (await api('GET', `/tickets/${id}`)).status, poll).toBe('resolved');
    await expect.poll(() => page.locator('#history').innerText(), poll).toContain('to Resolved');
    await screenshot(page, 'triage-ticket-1280');
  });

  it('the unassigned list and a bulk Take on a 360 px phone: no sideways page scroll', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Unassigned in my teams’ queues' }).click();
    await page.waitForURL((u) => u.searchParams.get('my_teams') === 'true');
    await expect.poll(() => page.locator('#tickets-table tbody tr').count(), poll).toBe(1);
    expect(await noSideScroll(page)).toBeLessThanOrEqual(360);
    await page.getByRole('checkbox', { name: 'Select all tickets on this page' }).check();
    await page.locator('#bulk-form select[name="changes.owner_id"]').selectOption(String(agentId));
    expect(await noSideScroll(page)).toBeLessThanOrEqual(360);
    await screenshot(page, 'triage-list-360');
    await page.locator('#bulk-form').getByRole('button', { name: 'Apply' }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Changed' }).innerText(), poll)
      .toBe('Changed 1 ticket');
    await expect.poll(() => page.locator('#tickets-table tbody td.empty').count(), poll).toBe(1);
    expect(await noSideScroll(page)).toBeLessThanOrEqual(360);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('without JavaScript: a plain form post, back to the list with the summary', async () => {
    const { context: plain, page: p } = await signedIn(browser, s.url, 'tria@example.com', PASSWORD, {
      javaScriptEnabled: false,
    });
    try {
      const a = (await api('POST', '/tickets', { queue_id: queueId, subject: 'Plain A', owner_id: agentId })).ticket.id;
      const b = (await api('POST', '/tickets', { queue_id: queueId, subject: 'Plain B', owner_id: agentId })).ticket.id;
      await p.goto('/tickets?owner_id=me&status=new,open,stalled');
      await rowBox(p, a).check();
      await rowBox(p, b).check();
      await p.locator('#bulk-form select[name="changes.status"]').selectOption('stalled');
      await p.locator('#bulk-form').getByRole('button', { name: 'Apply' }).click();
      await p.waitForLoadState('load');
      const back = new URL(p.url());
      expect([back.pathname, back.searchParams.get('owner_id'), back.searchParams.get('status')]).toEqual([
        '/tickets',
        'me',
        'new,open,stalled',
      ]);
      expect(await p.getByRole('status').filter({ hasText: 'Changed' }).innerText()).toBe('Changed 2 tickets');
      expect((await api('GET', `/tickets/${a}`)).status).toBe('stalled');
    } finally {
      await plain.close();
    }
  });
});
