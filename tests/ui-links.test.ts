import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, signedIn } from './helpers/browser.js';
import { ticketOf } from './helpers/reads.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// SPEC D3 links and split on the ticket page (decision 075) in a real Chromium: the Links panel
// at 1280 and 360 px (axe-clean, nothing wider than the screen); linking by number and finding a
// ticket by its subject, removing, the resolve check's "Resolved anyway", and Split with its
// confirmation page, each with the keyboard only.

const WAIT = 20_000;
let s: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];
let main: number;
let blocker: number;
let related: number;
let spare: number;

const make = async (subject: string) => {
  const r = await s.api('POST', '/tickets', { body: { queue_id: 1, subject, description: `About ${subject}` } });
  expect(r.status, r.text).toBe(201);
  return r.body.ticket.id as number;
};
const link = async (id: number, type: string, other: number) =>
  expect((await s.api('POST', `/tickets/${id}/links`, { body: { type, ticket_id: other } })).status).toBe(201);

beforeAll(async () => {
  s = await startServer();
  browser = await launchBrowser();
  main = await make('Migrate the mail server');
  blocker = await make('Order a new disk for the mail server');
  related = await make('Backups of the old mail server');
  spare = await make('Unusual zebra printer jam');
  await link(main, 'depends_on', blocker);
  await link(main, 'refers_to', related);
}, 120_000);
afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await s?.close();
});

async function agentPage(width: number): Promise<Page> {
  const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
  contexts.push(context);
  context.setDefaultTimeout(WAIT);
  await page.setViewportSize({ width, height: 900 });
  return page;
}
const focused = (page: Page) =>
  page.evaluate(() => {
    const a = (globalThis as any).document.activeElement;
    return a?.id || a?.textContent;
  });
const pageWidth = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);

describe('the Links panel', () => {
  for (const width of [1280, 360]) {
    it(`lists each kind with number, subject and status at ${width} px (axe-clean, nothing wider than the screen)`, async () => {
      const page = await agentPage(width);
      await page.goto(`/tickets/${main}`);
      const panel = page.getByRole('region', { name: 'Links' });
      await panel.waitFor();
      const text = await panel.innerText();
      expect(text).toContain('Depends on (1)');
      expect(text).toContain(`#${blocker} Order a new disk for the mail server`);
      expect(text).toContain('Refers to (1)');
      expect(text).toContain(`#${related} Backups of the old mail server`);
      expect(await panel.getByRole('button', { name: `Remove link: depends on #${blocker}` }).count()).toBe(1);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      const axe = await axeCheck(page);
      expect(axe.serious, axe.message).toEqual([]);
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `/tmp/h-links-panel-${width}.png`, fullPage: width === 360 });
      // The other side reads the reverse name.
      await page.goto(`/tickets/${blocker}`);
      expect(await page.getByRole('region', { name: 'Links' }).innerText()).toContain(
        `Depended on by (1)\n#${main} Migrate the mail server`,
      );
    });
  }

  it('links by subject search and by number, and removes, with the keyboard only', async () => {
    const page = await agentPage(1280);
    await page.goto(`/tickets/${related}`);
    const panel = page.getByRole('region', { name: 'Links' });
    await page.getByLabel('This ticket').focus();
    // "is parent of": ArrowDown through the options of the select.
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowUp');
    expect(await page.getByLabel('This ticket').inputValue()).toBe('parent_of');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('links-add-ticket');
    await page.keyboard.type('zebra printer');
    // The suggestions come from the subject search.
    await expect
      .poll(() => page.locator('#links-candidates option').evaluateAll((os) => os.map((o: any) => o.value)))
      .toEqual([`#${spare}`]);
    expect(await page.locator('#links-candidates option').first().getAttribute('label')).toBe(
      `#${spare} Unusual zebra printer jam (New)`,
    );
    await page.keyboard.press('Control+A');
    await page.keyboard.type(`#${spare}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => panel.innerText()).toContain(`Parent of (1)\n#${spare} Unusual zebra printer jam`);
    await expect.poll(() => page.locator('#history').innerText()).toContain(`Parent of #${spare} (linked by`);
    expect((await ticketOf(s, spare)).links.child_of).toEqual([related]);
    // A refused link says why, next to the form.
    await page.getByLabel('Ticket', { exact: true }).focus();
    await page.keyboard.type(String(related));
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#links-error').innerText()).toContain('cannot be linked to itself');
    await page.screenshot({ path: '/tmp/h-links-added.png', fullPage: true });
    // Remove.
    await panel.getByRole('button', { name: `Remove link: parent of #${spare}` }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => panel.innerText()).not.toContain('Parent of (1)');
    await expect.poll(() => page.locator('#history').innerText()).toContain(`No longer parent of #${spare}`);
    expect((await ticketOf(s, spare)).links.child_of).toEqual([]);
  });

  it('Resolve while a dependency is open asks, listing it; "Resolved anyway" resolves (keyboard)', async () => {
    const page = await agentPage(360);
    await page.goto(`/tickets/${main}`);
    await page.getByRole('button', { name: 'Resolve' }).focus();
    await page.keyboard.press('Enter');
    const question = page.locator('#err-quick');
    await expect.poll(() => question.innerText()).toContain('depends on a ticket that is');
    expect(await question.innerText()).toContain(`#${blocker} Order a new disk for the mail server (New)`);
    const axe = await axeCheck(page);
    expect(axe.serious, axe.message).toEqual([]);
    await page.screenshot({ path: '/tmp/h-links-resolve-409.png', fullPage: true });
    expect((await ticketOf(s, main)).status).toBe('new');
    await page.getByRole('button', { name: 'Resolved anyway' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await ticketOf(s, main)).status).toBe('resolved');
  });

  it('Split a message: the confirmation page says what the new ticket gets; the new ticket refers to the old', async () => {
    const customer = await s.user('requester');
    const t = await make('Two problems in one');
    expect(
      (await s.api('POST', `/tickets/${t}/watchers`, { body: { role: 'requester', user_id: customer.id } })).status,
    ).toBe(201);
    const msg = await s.api('POST', `/tickets/${t}/comment`, {
      token: customer.token,
      body: {
        body: 'And the scanner does not scan either.',
        attachments: [
          { filename: 'scan.txt', content_type: 'text/plain', content_base64: Buffer.from('x').toString('base64') },
        ],
      },
    });
    expect(msg.status, msg.text).toBe(201);
    const page = await agentPage(360);
    await page.goto(`/tickets/${t}`);
    await page.getByRole('link', { name: `Split entry #${msg.body.transaction.id} off into a new ticket` }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Split into a new ticket?' }).waitFor();
    const what = await page.locator('.split-what').innerText();
    expect(what).toContain('scan.txt');
    expect(what).toContain('And the scanner does not scan either.');
    expect(await pageWidth(page)).toBeLessThanOrEqual(360);
    const axe = await axeCheck(page);
    expect(axe.serious, axe.message).toEqual([]);
    await page.screenshot({ path: '/tmp/h-links-split-confirm.png', fullPage: true });
    await page.getByLabel('Subject of the new ticket').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Scanner does not scan');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => /\/tickets\/\d+$/.test(u.pathname) && u.pathname !== `/tickets/${t}`);
    const newId = Number(new URL(page.url()).pathname.split('/').pop());
    await expect.poll(() => page.locator('#history').innerText()).toContain(`Split off from #${t}`);
    expect(await page.getByRole('region', { name: 'Links' }).innerText()).toContain(
      `Refers to (1)\n#${t} Two problems`,
    );
    const made = await ticketOf(s, newId);
    expect(made).toMatchObject({ subject: 'Scanner does not scan', requester_id: customer.id });
    await page.screenshot({ path: '/tmp/h-links-split-new.png', fullPage: true });
  });
});
