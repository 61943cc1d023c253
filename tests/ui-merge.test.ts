import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { historyEntry, launchBrowser, screenshot, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// SPEC D3 merge and spam in Chromium (decisions 076, 077), by keyboard alone, at 1280 and 360 px,
// axe-clean: the ticket page's Merge (search by number or subject, a confirmation of what moves),
// the target's history ("from #id", the Merge entry's Unmerge), the tombstone's page leading to
// the target, the Spam confirmation, and a blocked user's badge and Unblock on the admin page.

const WAIT = 20_000;
const LONG = 120_000;
const PASSWORD = 'browser-password-123';

let s: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];
let agent: { id: number; email: string; token: string };
let customer: { id: number; email: string; token: string };

async function page(width: number, email = agent.email, password = PASSWORD): Promise<Page> {
  const { context, page: p } = await signedIn(browser, s.url, email, password);
  await p.setViewportSize({ width, height: 800 });
  context.setDefaultTimeout(WAIT);
  contexts.push(context);
  return p;
}
async function axeClean(p: Page, what: string) {
  const axe = await axeCheck(p);
  expect(axe.serious, `${what}: ${axe.message}`).toEqual([]);
}
async function noSideways(p: Page) {
  const { scroll, client } = await p.evaluate(() => {
    const doc = (globalThis as any).document.documentElement;
    return { scroll: doc.scrollWidth as number, client: doc.clientWidth as number };
  });
  expect(scroll).toBeLessThanOrEqual(client);
}
async function newTicket(subject: string): Promise<number> {
  const r = await s.api('POST', '/tickets', {
    token: customer.token,
    body: { queue_id: 1, subject, description: 'It does not work' },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.ticket.id as number;
}
/** Focus a control and press Enter: the keyboard's way of using it. */
async function press(p: Page, control: ReturnType<Page['getByRole']>) {
  await control.focus();
  await p.keyboard.press('Enter');
}

beforeAll(async () => {
  s = await startServer();
  agent = await s.user('agent');
  customer = await s.user('requester');
  const set = await s.api('PATCH', `/users/${agent.id}`, { body: { name: 'Ann Agent', password: PASSWORD } });
  expect(set.status, set.text).toBe(200);
  browser = await launchBrowser();
}, LONG);
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await s?.close();
});

describe('merge in a browser', () => {
  it.each([1280, 360])(
    'at %i px: search the target by subject, confirm what moves, land on the target; the tombstone leads there; Unmerge',
    async (width) => {
      const a = await newTicket(`Laptop fan loud ${width}`);
      const b = await newTicket(`Laptop overheating ${width}`);
      const p = await page(width);
      await p.goto(`/tickets/${a}`);
      const actions = p.getByRole('region', { name: 'More actions' });
      await press(p, actions.getByRole('link', { name: 'Merge into another ticket…' }));
      await p.getByRole('searchbox', { name: 'Ticket number or subject' }).waitFor();
      await axeClean(p, 'merge search');
      await p.getByRole('searchbox', { name: 'Ticket number or subject' }).fill(`overheating ${width}`);
      await p.keyboard.press('Enter');
      const pick = p.getByRole('link', { name: `#${b} Laptop overheating ${width}` });
      await pick.waitFor();
      expect(await p.getByRole('link', { name: new RegExp(`^#${a} `) }).count()).toBe(0);
      await axeClean(p, 'merge search results');
      await noSideways(p);
      await screenshot(p, `merge-search-${width}`);
      await press(p, pick);

      await p.getByRole('heading', { name: `Merge #${a} into #${b}?` }).waitFor();
      const moves = await p.locator('.merge-moves li').allInnerTexts();
      expect(moves).toEqual([
        '1 history entry (with their files, keeping their dates)',
        '1 person (requesters, Cc and AdminCc)',
        '0 tags',
        '0 links',
      ]);
      await axeClean(p, 'merge confirmation');
      await noSideways(p);
      await screenshot(p, `merge-confirm-${width}`);
      await press(p, p.getByRole('button', { name: `Merge into #${b}` }));

      await p.waitForURL(`**/tickets/${b}`);
      const merged = historyEntry(p, `#${a} merged into this ticket by Ann Agent`);
      await merged.waitFor();
      expect(await historyEntry(p, 'Ticket created by').first().innerText()).toContain(`from #${a}`);
      const unmerge = p.getByRole('button', { name: `Unmerge #${a} from this ticket` });
      expect(await unmerge.isVisible()).toBe(true);
      await axeClean(p, 'target after merge');
      await noSideways(p);
      await screenshot(p, `merge-target-${width}`);

      // The merged ticket's page leads to the target.
      await p.goto(`/tickets/${a}`);
      await p.waitForURL(`**/tickets/${b}`);

      await press(p, p.getByRole('button', { name: `Unmerge #${a} from this ticket` }));
      await p.waitForURL(`**/tickets/${a}`);
      await historyEntry(p, `Unmerged from #${b} by Ann Agent`).waitFor();
      expect(await p.locator('.merged-from').count()).toBe(0);
      await axeClean(p, 'ticket after unmerge');
    },
    LONG,
  );
});

describe('spam in a browser', () => {
  it.each([360, 1280])(
    'at %i px: Mark as spam asks first, deletes the ticket and blocks the requester; an admin unblocks them',
    async (width) => {
      const id = await newTicket(`Cheap watches ${width}`);
      const p = await page(width);
      await p.goto(`/tickets/${id}`);
      await press(p, p.getByRole('region', { name: 'More actions' }).getByRole('link', { name: 'Mark as spam…' }));
      await p.getByRole('heading', { name: `Mark #${id} as spam?` }).waitFor();
      expect(await p.locator('.spam-page').innerText()).toContain(`${customer.email} blocked`);
      await axeClean(p, 'spam confirmation');
      await noSideways(p);
      await screenshot(p, `spam-confirm-${width}`);
      await press(p, p.getByRole('button', { name: 'Mark as spam' }));
      await p.waitForURL(`**/tickets/${id}`);
      await p.getByText('This ticket is deleted.').waitFor();

      const admin = await page(width, ADMIN_EMAIL, ADMIN_PASSWORD);
      await admin.goto(`/users/${customer.id}`);
      const banner = admin.locator('.blocked-banner');
      await banner.waitFor();
      expect(await banner.innerText()).toContain(`mail from ${customer.email} is refused`);
      await axeClean(admin, 'blocked user');
      await noSideways(admin);
      await screenshot(admin, `user-blocked-${width}`);
      await admin.goto('/users?role=requester');
      expect(await admin.locator('tr', { hasText: customer.email }).innerText()).toContain('blocked');
      await admin.goto(`/users/${customer.id}`);
      await press(admin, admin.getByRole('button', { name: 'Unblock' }));
      await admin.waitForURL(`**/users/${customer.id}?saved`);
      expect(await admin.locator('.blocked-banner').count()).toBe(0);
      expect((await s.api('GET', `/users/${customer.id}`)).body.blocked).toBe(false);
    },
    LONG,
  );
});
