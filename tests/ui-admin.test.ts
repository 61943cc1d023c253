import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchBrowser, screenshot, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// The dashboards and the admin area in a real Chromium against a real hxdesk (real server,
// real SQLite): what an agent and an administrator see and do, without touching the API.

const WAIT = 20_000; // two cores, a browser and a server: be patient, but poll
const LONG = 120_000;
const PASSWORD = 'browser-password-123';

interface Person {
  id: number;
  email: string;
  token: string;
  name: string;
}

let s: TestServer;
let browser: Browser;
let adminId: number;
let alice: Person; // agent, member of team Support
let bob: Person; // agent, in no team
let supportId: number;
let billingId: number;
const tk: Record<'login' | 'invoice' | 'refund' | 'old', { id: number; subject: string }> = {} as never;

async function ok<T = any>(
  method: string,
  path: string,
  body?: unknown,
  status = method === 'POST' ? 201 : 200,
): Promise<T> {
  const res = await s.api(method, path, body === undefined ? {} : { body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
  return res.body as T;
}

/** An agent with a password, so that they can sign in through the form. */
async function person(role: 'agent' | 'admin', name: string): Promise<Person> {
  const u = await s.user(role);
  await ok('PATCH', `/users/${u.id}`, { name, password: PASSWORD });
  return { ...u, name };
}

async function ticket(subject: string, fields: Record<string, unknown>) {
  const { ticket: t } = await ok('POST', '/tickets', { subject, ...fields });
  return { id: t.id as number, subject };
}

const contexts: BrowserContext[] = [];
async function as(who: Person | 'admin', opts: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
  const [email, password] = who === 'admin' ? [ADMIN_EMAIL, ADMIN_PASSWORD] : [who.email, PASSWORD];
  const { context, page } = await signedIn(browser, s.url, email, password, opts);
  context.setDefaultTimeout(WAIT);
  contexts.push(context);
  page.on('dialog', (d) => {
    void d.accept();
  }); // "Delete …?" / "Disable …?" confirmations
  return page;
}

/** Does something that replaces the page (a navigation, a boosted form) and waits for the new one. */
async function newPage(page: Page, act: () => Promise<unknown>) {
  await page.locator('main').evaluate((m: any) => {
    m.dataset.stale = 'yes';
  });
  await act();
  await page.locator('main:not([data-stale])').waitFor({ timeout: WAIT });
}

const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: WAIT, interval: 100 });
const texts = async (l: Locator) => (await l.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
const heading = (page: Page) => page.locator('main h1').first();
const mainNav = (page: Page) => texts(page.getByRole('navigation', { name: 'Main' }).getByRole('link'));

/** Every visible input, select and textarea has an accessible name (a label with text, aria-label, aria-labelledby). */
async function expectLabelled(page: Page, where: string) {
  const unnamed = await page.locator('input:not([type=hidden]), select, textarea').evaluateAll((els: any[]) =>
    els
      .filter((e) => e.checkVisibility())
      .filter(
        (e) =>
          !(
            [...(e.labels ?? [])].some((l: any) => l.textContent.trim()) ||
            e.getAttribute('aria-label') ||
            e.getAttribute('aria-labelledby')
          ),
      )
      .map((e) => e.outerHTML.slice(0, 160)),
  );
  expect(unnamed, `fields without a name on ${where}`).toEqual([]);
  const count = await page.locator('input:not([type=hidden]), select, textarea').count();
  return count;
}

/** The rows of a table (its cells' text), for the table whose header has `firstHeader`. */
async function tableRows(page: Page, firstHeader: string): Promise<string[][]> {
  const table = page.locator('table', { has: page.locator('thead th', { hasText: firstHeader }) }).first();
  return table
    .locator('tbody tr')
    .evaluateAll((trs: any[]) =>
      trs.map((tr) => [...tr.cells].map((td: any) => td.textContent.replace(/\s+/g, ' ').trim())),
    );
}

beforeAll(async () => {
  s = await startServer();
  browser = await launchBrowser();
  adminId = (await ok('GET', '/me')).id;
  alice = await person('agent', 'Alice Agent');
  bob = await person('agent', 'Bob Outsider');
  supportId = (await ok('POST', '/teams', { name: 'Support', description: 'First line' })).id;
  await ok('POST', `/teams/${supportId}/members`, { user_id: alice.id });
  billingId = (await ok('POST', '/queues', { name: 'Billing' })).id;
  await ok('POST', '/custom-fields', { key: 'region', name: 'Region', type: 'text', pattern: '^[A-Z]{2}$' });
  tk.login = await ticket('Cannot log in', { queue_id: 1, owner_id: adminId });
  tk.invoice = await ticket('Invoice sent twice', { queue_id: billingId, owner_id: alice.id, status: 'open' });
  tk.refund = await ticket('Refund please', { queue_id: billingId, owner_id: alice.id });
  tk.old = await ticket('Old question', { queue_id: 1, status: 'resolved' });
  await ok('POST', '/saved-views', {
    name: 'Billing tickets',
    filters: { queue_id: billingId },
    columns: ['ID', 'Subject', 'Status'],
  });
}, 90_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await s?.close();
});

describe('layout and error pages', () => {
  it(
    'shows the navigation by role, the signed-in user, 404 and 403 pages, and signs in to the page asked for',
    async () => {
      const admin = await as('admin');
      await admin.goto('/tickets');
      expect(await mainNav(admin)).toEqual(['Tickets', 'Dashboards', 'Reports', 'Responses', 'My week', 'Admin']);
      await admin.locator('header.topbar').getByText('Administrator', { exact: true }).waitFor();
      await newPage(admin, () => admin.getByRole('link', { name: 'Admin', exact: true }).click());
      await poll(() => heading(admin).textContent()).toBe('Users');
      expect(new URL(admin.url()).pathname).toBe('/users');

      const missing = await admin.goto('/tickets/999999');
      expect(missing?.status()).toBe(404);
      await poll(() => heading(admin).textContent()).toMatch(/^404/);
      await admin.getByRole('alert').getByText('Ticket 999999', { exact: false }).waitFor();
      await admin.getByRole('link', { name: 'Back to tickets' }).waitFor();
      await screenshot(admin, 'error-404');

      const agent = await as(alice);
      await agent.goto('/tickets');
      expect(await mainNav(agent)).toEqual(['Tickets', 'Dashboards', 'Reports', 'Responses', 'My week']);
      await agent.locator('header.topbar').getByText('Alice Agent', { exact: true }).waitFor();
      const denied = await agent.goto('/scrips');
      expect(denied?.status()).toBe(403);
      await poll(() => heading(agent).textContent()).toMatch(/^403/);
      await screenshot(agent, 'error-403');

      // Signing out lands on the sign-in page; a page asked for while signed out comes back after signing in.
      await newPage(agent, () => agent.getByRole('button', { name: 'Sign out' }).click());
      expect(new URL(agent.url()).pathname).toBe('/login');
      await agent.goto('/tickets?status=open');
      const atLogin = new URL(agent.url());
      expect(atLogin.pathname).toBe('/login');
      expect(atLogin.searchParams.get('next')).toBe('/tickets?status=open');
      await agent.getByLabel('Email').fill(alice.email);
      await agent.getByLabel('Password').fill(PASSWORD);
      await agent.getByRole('button', { name: 'Sign in' }).click();
      await agent.waitForURL((u) => u.pathname === '/tickets');
      expect(new URL(agent.url()).search).toBe('?status=open');
      expect(await agent.locator('#filters select[name=status]').inputValue()).toBe('open');
      await agent.getByRole('link', { name: tk.invoice.subject }).waitFor();
      expect(await agent.getByRole('link', { name: tk.refund.subject }).count()).toBe(0); // "new", filtered out
    },
    LONG,
  );
});

describe('an agent and the admin area', () => {
  it(
    'shows an agent a 403 page on every admin screen and no Admin link, while the JSON API still serves GET /users',
    async () => {
      const agent = await as(bob);
      await agent.goto('/dashboards');
      expect(await mainNav(agent)).not.toContain('Admin');
      for (const path of [
        '/users',
        '/teams',
        '/queues',
        '/custom-fields',
        '/templates',
        '/scrips',
        '/outbox',
        '/mail/intake',
        '/mail-settings',
        `/users/${alice.id}`,
        `/teams/${supportId}`,
      ]) {
        const res = await agent.goto(path);
        expect(res?.status(), path).toBe(403);
        expect(await heading(agent).textContent(), path).toMatch(/^403 · forbidden/);
        expect(await agent.locator('.admin-nav').count(), path).toBe(0);
        expect(await mainNav(agent), path).toEqual(['Tickets', 'Dashboards', 'Reports', 'Responses', 'My week']);
      }
      const api = await s.api('GET', '/users', { token: bob.token });
      expect(api.status).toBe(200);
      expect(api.body.users.map((u: { email: string }) => u.email)).toEqual(
        expect.arrayContaining([alice.email, bob.email]),
      );
    },
    LONG,
  );
});

describe('dashboards', () => {
  /** The widgets' titles, in the order shown. */
  const widgetTitles = (page: Page) => texts(page.locator('.widget h2 > span:first-child'));
  const widget = (page: Page, title: string) =>
    page.locator('article.widget', { has: page.locator('h2 > span:first-child', { hasText: title }) });
  /** A bar widget's rows as { label: count }. */
  async function bars(page: Page, title: string): Promise<Record<string, number>> {
    const rows = await widget(page, title)
      .locator('.bar')
      .evaluateAll((els: any[]) =>
        els.map((b) => [b.children[0].textContent.trim(), Number(b.querySelector('.num').textContent)]),
      );
    return Object.fromEntries(rows);
  }
  async function addWidget(page: Page, kind: string, title: string, extra: { view?: string; team?: string } = {}) {
    const before = (await widgetTitles(page)).length;
    const form = page.locator('form', { has: page.getByRole('button', { name: 'Add widget' }) });
    await form.getByLabel(/^Kind/).selectOption({ label: kind });
    await form.getByLabel('Title').fill(title);
    if (extra.view) await form.getByLabel(/^Saved view/).selectOption({ label: extra.view });
    if (extra.team) await form.getByLabel(/^Team \(for/).selectOption({ label: extra.team });
    await form.getByRole('button', { name: 'Add widget' }).click();
    await poll(async () => (await widgetTitles(page)).length).toBe(before + 1);
  }
  const total = async (query: string) => (await ok('GET', `/tickets?${query}&limit=1`)).total as number;

  it(
    'creates a dashboard with every kind of widget, shows their contents, reorders, removes and renames',
    async () => {
      const page = await as('admin');
      await page.goto('/dashboards');
      await page.getByText('No dashboards yet.').waitFor();
      await page.getByLabel('Name').fill('Ops board');
      await newPage(page, () => page.getByRole('button', { name: 'Create dashboard' }).click());
      // The new dashboard's page, saying it was saved (C4: every admin form says so).
      expect(page.url()).toMatch(/\/dashboards\/\d+\?saved$/);
      expect(await page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(1);
      expect(await page.getByLabel('Dashboard', { exact: true }).inputValue()).toBe('Ops board');
      await page.getByText('Shared with everyone').waitFor();

      await addWidget(page, 'Tickets by status', 'By status');
      await addWidget(page, 'Active tickets by queue', 'By queue');
      await addWidget(page, 'Team workload', 'Support load', { team: 'Support' });
      await addWidget(page, 'My open tickets', '');
      await addWidget(page, 'Tickets of a saved view', 'Billing list', { view: 'Billing tickets' });
      expect(await widgetTitles(page)).toEqual([
        'By status',
        'By queue',
        'Support load',
        'My open tickets',
        'Billing list',
      ]);

      // Contents match the data: counts per status and per queue, Alice's workload, links to tickets.
      const expectedStatus: Record<string, number> = {};
      for (const [st, label] of [
        ['new', 'New'],
        ['open', 'Open'],
        ['stalled', 'Stalled'],
        ['resolved', 'Resolved'],
        ['rejected', 'Rejected'],
        ['deleted', 'Deleted'],
      ]) {
        const n = await total(`status=${st}`);
        if (n > 0) expectedStatus[label] = n;
      }
      expect(expectedStatus.Open).toBeGreaterThanOrEqual(1);
      expect(expectedStatus.Resolved).toBeGreaterThanOrEqual(1);
      expect(await bars(page, 'By status')).toEqual(expectedStatus);
      const byQueue = await bars(page, 'By queue');
      expect(byQueue.Billing).toBe(2);
      expect(byQueue.General).toBe(await total('queue_id=1&status=new,open,stalled'));
      expect(await bars(page, 'Support load')).toEqual({ 'Alice Agent': 2 });
      expect(await widget(page, 'Support load').getByRole('link', { name: 'Alice Agent' }).getAttribute('href')).toBe(
        `/tickets?owner_id=${alice.id}&status=new,open,stalled`,
      );
      const mine = widget(page, 'My open tickets');
      expect(await mine.getByRole('link').getAttribute('href')).toBe(`/tickets/${tk.login.id}`);
      expect(await texts(mine.getByRole('link'))).toEqual([`#${tk.login.id} ${tk.login.subject}`]);
      const list = widget(page, 'Billing list');
      expect((await texts(list.locator('li a'))).sort()).toEqual(
        [`#${tk.invoice.id} ${tk.invoice.subject}`, `#${tk.refund.id} ${tk.refund.subject}`].sort(),
      );
      await screenshot(page, 'dashboard');

      // A ticket link in a widget opens the ticket.
      await newPage(page, () => list.getByRole('link', { name: tk.refund.subject }).click());
      expect(new URL(page.url()).pathname).toBe(`/tickets/${tk.refund.id}`);
      await page.goBack();
      await page.waitForURL(/\/dashboards\/\d+(\?saved)?$/);
      await widget(page, 'Billing list').waitFor();

      // Reorder with ↑/↓, then remove one.
      await page.getByRole('button', { name: 'Move By status down' }).click();
      await poll(() => widgetTitles(page)).toEqual([
        'By queue',
        'By status',
        'Support load',
        'My open tickets',
        'Billing list',
      ]);
      await page.getByRole('button', { name: 'Move Billing list up' }).click();
      await poll(() => widgetTitles(page)).toEqual([
        'By queue',
        'By status',
        'Support load',
        'Billing list',
        'My open tickets',
      ]);
      expect(await page.getByRole('button', { name: 'Move By queue up' }).count()).toBe(0); // the first has no ↑
      expect(await page.getByRole('button', { name: 'Move My open tickets down' }).count()).toBe(0); // the last has no ↓
      await page.getByRole('button', { name: 'Move My open tickets up' }).waitFor(); // an untitled widget's buttons say what it shows
      await page.getByRole('button', { name: 'Remove By queue' }).click();
      await poll(() => widgetTitles(page)).toEqual(['By status', 'Support load', 'Billing list', 'My open tickets']);
      await page.reload();
      expect(await widgetTitles(page)).toEqual(['By status', 'Support load', 'Billing list', 'My open tickets']);

      // Rename: type a new name and leave the field.
      await page.getByLabel('Dashboard', { exact: true }).fill('Billing board');
      await page.getByLabel('Dashboard', { exact: true }).press('Tab');
      await poll(async () => (await ok('GET', '/dashboards')).dashboards.map((d: { name: string }) => d.name)).toEqual([
        'Billing board',
      ]);
      await page.goto('/dashboards');
      await page.getByRole('link', { name: 'Billing board' }).waitFor();
      expect(await page.getByRole('link', { name: 'Ops board' }).count()).toBe(0);
      await screenshot(page, 'dashboards');
    },
    LONG,
  );

  it(
    'assigns a team with "Visible to": a non-member loses the dashboard, a member keeps it; "Everyone" shares it again',
    async () => {
      const dash = await ok('POST', '/dashboards', {
        name: 'Team board',
        widgets: [
          { kind: 'my_tickets', title: 'Mine' },
          { kind: 'team_workload', title: 'Load' },
        ],
      });
      const admin = await as('admin');
      const outsider = await as(bob);
      const member = await as(alice);

      await outsider.goto('/dashboards');
      await outsider.getByRole('link', { name: 'Team board' }).waitFor(); // shared with everyone so far
      await admin.goto(`/dashboards/${dash.id}`);
      await admin.getByText('Shared with everyone').waitFor();
      await widget(admin, 'Load').getByText('Choose a team').waitFor(); // no team yet: the workload widget asks for one

      await admin.getByLabel('Visible to').selectOption({ label: 'Support' });
      await admin.getByText('Team Support and administrators').waitFor();
      expect(await bars(admin, 'Load')).toEqual({ 'Alice Agent': 2 });
      await admin.reload();
      expect(await admin.getByLabel('Visible to').locator('option:checked').textContent()).toBe('Support');

      // Bob still has the old list open: following its link now shows a 404 page.
      await newPage(outsider, () => outsider.getByRole('link', { name: 'Team board' }).click());
      await poll(() => heading(outsider).textContent()).toMatch(/^404/);
      await outsider.goto('/dashboards');
      await outsider.getByRole('heading', { name: 'Dashboards' }).waitFor();
      expect(await outsider.getByRole('link', { name: 'Team board' }).count()).toBe(0);
      expect((await outsider.goto(`/dashboards/${dash.id}`))?.status()).toBe(404);
      await poll(() => heading(outsider).textContent()).toMatch(/^404/);

      await member.goto('/dashboards');
      await newPage(member, () => member.getByRole('link', { name: 'Team board' }).click());
      expect(await member.getByLabel('Dashboard', { exact: true }).inputValue()).toBe('Team board');
      expect(await bars(member, 'Load')).toEqual({ 'Alice Agent': 2 });
      // "My open tickets" is the viewer's own: Alice sees hers.
      expect((await texts(widget(member, 'Mine').getByRole('link'))).sort()).toEqual(
        [`#${tk.invoice.id} ${tk.invoice.subject}`, `#${tk.refund.id} ${tk.refund.subject}`].sort(),
      );

      await admin.getByLabel('Visible to').selectOption({ label: 'Everyone' });
      await admin.getByText('Shared with everyone').waitFor();
      await outsider.goto('/dashboards');
      await outsider.getByRole('link', { name: 'Team board' }).waitFor();
      expect((await outsider.goto(`/dashboards/${dash.id}`))?.status()).toBe(200);
      expect(await outsider.getByLabel('Dashboard', { exact: true }).inputValue()).toBe('Team board');
    },
    LONG,
  );
});

describe('an admin sets up everything without the API', () => {
  let page: Page;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    page = await as('admin');
  }, 60_000);
  const idFromUrl = () => Number(new URL(page.url()).pathname.split('/').pop());

  it(
    'creates a user (a short password is a 422 shown in the form, the email kept), edits the role, disables the user',
    async () => {
      await page.goto('/users');
      await screenshot(page, 'admin-users');
      const form = page.locator('#new-user');
      await form.getByLabel('Name').fill('Carol Newhire');
      await form.getByLabel('Email').fill('carol@example.com');
      await form.getByLabel('Role').selectOption({ label: 'Agent' });
      await form.getByLabel('Password').fill('too-short');
      await form.getByRole('button', { name: 'Create user' }).click();
      // Said once, next to the field it is about (SPEC D6), in words.
      const note = form.locator('.field-error[data-field-error]');
      await poll(() => note.textContent()).toBe('Password: at least 12 characters');
      expect(await form.getByLabel('Password').getAttribute('aria-describedby')).toContain(
        await note.getAttribute('id'),
      );
      expect(await page.locator('#new-user-error').textContent()).toBe('');
      expect(await form.getByLabel('Email').inputValue()).toBe('carol@example.com');
      expect(await form.getByLabel('Name').inputValue()).toBe('Carol Newhire');
      expect(await form.locator('.topbar, form.whoami').count()).toBe(0); // just the message, not a page in the form
      expect(new URL(page.url()).pathname).toBe('/users');
      await screenshot(page, 'admin-users-422');

      await form.getByLabel('Password').fill('carol-password-123');
      await newPage(page, () => form.getByRole('button', { name: 'Create user' }).click());
      await poll(() => heading(page).textContent()).toBe('Carol Newhire');
      ids.carol = idFromUrl();
      await screenshot(page, 'admin-user');

      await page.locator('#edit-user').getByLabel('Role').selectOption({ label: 'Administrator' });
      await newPage(page, () => page.locator('#edit-user').getByRole('button', { name: 'Save' }).click());
      expect(await page.locator('#edit-user').getByLabel('Role').locator('option:checked').textContent()).toBe(
        'Administrator',
      );
      await page.goto('/users');
      expect((await tableRows(page, 'Email')).find((r) => r[1] === 'carol@example.com')).toEqual([
        'Carol Newhire',
        'carol@example.com',
        'admin',
        'Active',
      ]);

      await page.goto(`/users/${ids.carol}`);
      await newPage(page, () => page.getByRole('button', { name: 'Disable user' }).click());
      expect(new URL(page.url()).pathname).toBe('/users');
      expect((await tableRows(page, 'Email')).find((r) => r[1] === 'carol@example.com')?.[3]).toBe('Disabled');

      // A disabled user cannot sign in.
      const context = await browser.newContext({ baseURL: s.url });
      contexts.push(context);
      const login = await context.newPage();
      await login.goto('/login');
      await login.getByLabel('Email').fill('carol@example.com');
      await login.getByLabel('Password').fill('carol-password-123');
      await login.getByRole('button', { name: 'Sign in' }).click();
      await login.getByText('Invalid email or password').waitFor({ timeout: WAIT });
    },
    LONG,
  );

  it(
    'creates a team and adds and removes members',
    async () => {
      await page.goto('/teams');
      await page.locator('#new-team').getByLabel('Name').fill('Billing crew');
      await page.locator('#new-team').getByLabel('Description').fill('Money matters');
      await newPage(page, () => page.getByRole('button', { name: 'Create team' }).click());
      await poll(() => heading(page).textContent()).toBe('Team Billing crew');
      ids.team = idFromUrl();
      await page.getByText('No members yet.').waitFor();

      for (const who of [alice, bob]) {
        await page.getByLabel('Add a member').selectOption({ label: `${who.name} (${who.email})` });
        await newPage(page, () => page.getByRole('button', { name: 'Add to team' }).click());
        await page.getByRole('cell', { name: `${who.name} (${who.email})` }).waitFor();
      }
      const bobRow = page.getByRole('row', { name: bob.name });
      await newPage(page, () => bobRow.getByRole('button', { name: 'Remove' }).click());
      await page.getByRole('cell', { name: `${alice.name} (${alice.email})` }).waitFor();
      expect(await page.getByRole('cell', { name: `${bob.name} (${bob.email})` }).count()).toBe(0);
      expect(await texts(page.getByLabel('Add a member').locator('option'))).toContain(`${bob.name} (${bob.email})`);

      await page.goto('/teams');
      await screenshot(page, 'admin-teams');
      expect((await tableRows(page, 'Team')).find((r) => r[0] === 'Billing crew')).toEqual([
        'Billing crew',
        'Money matters',
        'Alice Agent',
      ]);
    },
    LONG,
  );

  it(
    'creates a queue with a default team and a mail alias',
    async () => {
      await page.goto('/queues');
      const form = page.locator('#new-queue');
      await form.getByLabel('Name').fill('Refunds');
      await form.getByLabel('Mail alias').fill('refunds@example.com');
      await form.getByLabel('Default team for new tickets').selectOption({ label: 'Billing crew' });
      await newPage(page, () => form.getByRole('button', { name: 'Create queue' }).click());
      await poll(() => heading(page).textContent()).toBe('Queue Refunds');
      ids.queue = idFromUrl();
      expect(await page.locator('#edit-queue').getByLabel('Mail alias').inputValue()).toBe('refunds@example.com');
      await page.goto('/queues');
      await screenshot(page, 'admin-queues');
      expect((await tableRows(page, 'Queue')).find((r) => r[0] === 'Refunds')).toEqual([
        'Refunds',
        'refunds@example.com',
        'Billing crew',
      ]);
    },
    LONG,
  );

  it(
    'creates a select custom field limited to a queue, which the new-ticket dialog shows for that queue only',
    async () => {
      expect(ids.queue).toBeGreaterThan(0);
      await page.goto('/custom-fields');
      const form = page.locator('#new-field');
      await form.getByLabel('Key').fill('plan');
      await form.getByLabel('Name').fill('Plan');
      await form.getByLabel('Type').selectOption({ label: 'Select' });
      await form.getByLabel('Options (select)').fill('basic, premium');
      await form.getByLabel('Pattern').fill('^[a-z]+$');
      await form.getByLabel('Required').check();
      await form.getByLabel('Refunds').check();
      await newPage(page, () => form.getByRole('button', { name: 'Create field' }).click());
      await poll(() => heading(page).textContent()).toBe('Custom field Plan');
      ids.field = idFromUrl();
      await page.goto('/custom-fields');
      await screenshot(page, 'admin-custom-fields');
      expect((await tableRows(page, 'Key')).find((r) => r[1] === 'plan')).toEqual([
        'Plan',
        'plan',
        'select (basic, premium)',
        '^[a-z]+$',
        'Yes',
        'Refunds',
      ]);

      await page.goto('/tickets');
      await page.getByRole('link', { name: 'New ticket' }).click();
      const dialog = page.locator('dialog#new-ticket');
      const queue = dialog.getByLabel(/^Queue/);
      await queue.waitFor();
      expect(await queue.locator('option:checked').textContent()).toBe('General');
      await dialog.getByLabel('Region').waitFor(); // a field for every queue
      expect(await dialog.getByText('Plan').count()).toBe(0);
      await queue.selectOption({ label: 'Refunds' });
      const plan = dialog.getByLabel('Plan *');
      await plan.waitFor();
      expect(await texts(plan.locator('option'))).toEqual(['—', 'basic', 'premium']);
      await dialog.getByText('Format: ^[a-z]+$').waitFor();
      await queue.selectOption({ label: 'Billing' });
      await poll(() => dialog.getByText('Plan').count()).toBe(0);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    },
    LONG,
  );

  it(
    'creates a template and a scrip that uses it, then disables the scrip',
    async () => {
      await page.goto('/templates');
      const tform = page.locator('#new-template');
      await tform.getByLabel('Name').fill('Refund note');
      await tform.getByLabel('Subject').fill('Refund for {{ ticket.subject }}');
      await tform.getByLabel('Body').fill('We are looking at your refund.');
      await newPage(page, () => tform.getByRole('button', { name: 'Create template' }).click());
      await poll(() => heading(page).textContent()).toBe('Template Refund note');
      ids.template = idFromUrl();
      await page.getByText('Not used by any scrip.').waitFor();

      await page.goto('/scrips');
      const form = page.locator('#new-scrip');
      await form.getByLabel('Key').fill('refund_note');
      await form.getByLabel('Description').fill('Tell the requester about refunds');
      await form.getByLabel(/^When/).selectOption({ label: 'on create' });
      await form.getByLabel(/^Do/).selectOption({ label: 'notify requester' });
      await form.getByLabel(/^Template/).selectOption({ label: 'Refund note' });
      await form.getByLabel(/^Queue/).selectOption({ label: 'Refunds' });
      expect(await form.getByLabel('Enabled').isChecked()).toBe(true);
      await newPage(page, () => form.getByRole('button', { name: 'Create scrip' }).click());
      await poll(() => heading(page).textContent()).toBe('Scrip refund_note');

      await page.locator('#edit-scrip').getByLabel('Enabled').uncheck();
      await newPage(page, () => page.locator('#edit-scrip').getByRole('button', { name: 'Save' }).click());
      expect(await page.locator('#edit-scrip').getByLabel('Enabled').isChecked()).toBe(false);
      await page.goto('/scrips');
      await screenshot(page, 'admin-scrips');
      expect((await tableRows(page, 'Order')).find((r) => r[1] === 'refund_note')).toEqual([
        '0',
        'refund_note',
        'on_create',
        'notify_requester',
        'Refund note',
        'Refunds',
        'No',
      ]);

      await page.goto(`/templates/${ids.template}`);
      await page.getByText('Used by scrip refund_note.').waitFor();
      await page.goto('/templates');
      await screenshot(page, 'admin-templates');
      expect((await tableRows(page, 'Name')).map((r) => r[0])).toContain('Refund note');
    },
    LONG,
  );

  it(
    'lists the queued autoreply in the outbox and a received message in the mail intake log',
    async () => {
      // For a customer: a staff member who opens a ticket for themselves gets no autoreply (SPEC C2).
      const t = await ticket('Autoreply please', { queue_id: 1, requesters: ['pat.customer@example.net'] });
      const raw = [
        'From: Dana Sender <dana@example.net>',
        'To: support@example.com',
        'Subject: Where is my money',
        'Message-ID: <ui-admin-1@example.net>',
        'Date: Mon, 02 Mar 2026 10:00:00 +0000',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'I paid twice.',
        '',
      ].join('\r\n');
      const mail = await s.api('POST', '/mailgate', {
        token: null,
        headers: { 'content-type': 'message/rfc822' },
        body: raw,
      });
      expect(mail.status, mail.text).toBe(201);

      await page.goto('/outbox');
      await screenshot(page, 'admin-outbox');
      const row = (await tableRows(page, 'Kind')).find((r) => r[4] === `#${t.id}`);
      expect(row?.slice(1, 3)).toEqual(['email', 'pat.customer@example.net']);
      expect(row?.[3]).toContain('Autoreply please');
      expect(row?.[5]).toBe('queued');
      await page.getByRole('link', { name: 'Queued', exact: true }).click();
      await page.waitForURL(/status=queued/);
      expect((await tableRows(page, 'Kind')).some((r) => r[4] === `#${t.id}`)).toBe(true);

      await page.goto('/mail/intake');
      await screenshot(page, 'admin-mail-intake');
      const entry = (await tableRows(page, 'Verdict')).find((r) => r[3] === 'Where is my money');
      expect(entry?.[2]).toBe('dana@example.net');
      expect(entry?.[4]).toBe('created');
      expect(entry?.[6]).toBe(`#${mail.body.ticket_id}`);
      await newPage(page, () => page.getByRole('link', { name: entry![0], exact: true }).click());
      await poll(() => heading(page).textContent()).toBe(`Message ${entry![0]}`);
      await page.getByText('I paid twice.').waitFor();
    },
    LONG,
  );
});

describe('template editor', () => {
  it(
    'previews as the admin types, against a chosen ticket, shows Liquid errors, and saves only a good template',
    async () => {
      const tpl = await ok('POST', '/templates', {
        name: 'Preview test',
        subject: 'About {{ ticket.subject }}',
        body: 'Hello',
      });
      const page = await as('admin');
      await page.goto(`/templates/${tpl.id}`);
      const preview = page.locator('#preview');
      const body = page.locator('#edit-template').getByLabel('Body');
      // On load: the sample ticket's data.
      await poll(() => preview.locator('p').first().textContent()).toBe('Subject: About Printer on fire');
      expect(await preview.locator('.preview-body').textContent()).toBe('Hello');

      await body.click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type(' - {{ ticket.subject }}');
      await poll(() => preview.locator('.preview-body').textContent()).toBe('Hello - Printer on fire');

      await page.getByLabel('Against ticket #').fill(String(tk.invoice.id));
      await poll(() => preview.locator('.preview-body').textContent()).toBe(`Hello - ${tk.invoice.subject}`);
      expect(await preview.locator('p').first().textContent()).toBe(`Subject: About ${tk.invoice.subject}`);
      await screenshot(page, 'template-editor');

      await body.fill('Broken {{ ticket.subject ');
      await poll(() => preview.textContent()).toMatch(/Liquid error/);
      expect(await preview.locator('.preview-body').count()).toBe(0);
      await page.locator('#edit-template').getByRole('button', { name: 'Save' }).click();
      await poll(() => page.locator('#edit-template-error').textContent()).toMatch(/Liquid error/);
      expect(await body.inputValue()).toBe('Broken {{ ticket.subject '); // nothing typed is lost
      expect((await ok('GET', `/templates/${tpl.id}`)).body).toBe('Hello'); // nothing saved

      await body.fill('Fixed: {{ ticket.subject }}');
      await poll(() => page.locator('#edit-template-error').textContent()).toBe(''); // typing clears the error
      await poll(() => preview.locator('.preview-body').textContent()).toBe(`Fixed: ${tk.invoice.subject}`);
      await newPage(page, () => page.locator('#edit-template').getByRole('button', { name: 'Save' }).click());
      await page.reload();
      expect(await page.locator('#edit-template').getByLabel('Body').inputValue()).toBe('Fixed: {{ ticket.subject }}');
      expect((await ok('GET', `/templates/${tpl.id}`)).body).toBe('Fixed: {{ ticket.subject }}');
    },
    LONG,
  );
});

describe('without JavaScript', () => {
  it(
    'signs in, reads the list and a ticket, and replies with the plain form',
    async () => {
      const page = await as(alice, { javaScriptEnabled: false });
      await page.goto('/tickets');
      await page.getByRole('link', { name: tk.invoice.subject }).waitFor();
      await newPage(page, () => page.getByRole('link', { name: tk.invoice.subject }).click());
      expect(new URL(page.url()).pathname).toBe(`/tickets/${tk.invoice.id}`);
      expect(await page.getByLabel('Subject').inputValue()).toBe(tk.invoice.subject);
      await page.getByText('Ticket created by Administrator').waitFor();

      await page.getByLabel('Message').fill('Sent without any script.');
      await newPage(page, () => page.getByRole('button', { name: 'Send' }).click());
      expect(new URL(page.url()).pathname).toBe(`/tickets/${tk.invoice.id}`);
      const reply = page.locator('#history li', { hasText: 'Sent without any script.' });
      await reply.waitFor();
      expect(await reply.locator('.txn-what').textContent()).toBe('Reply by Alice Agent');
      await screenshot(page, 'nojs-ticket');
    },
    LONG,
  );

  it(
    'creates a team through the admin form, and shows a conflict as an error page',
    async () => {
      const page = await as('admin', { javaScriptEnabled: false });
      await page.goto('/teams');
      await page.locator('#new-team').getByLabel('Name').fill('Night shift');
      await newPage(page, () => page.getByRole('button', { name: 'Create team' }).click());
      expect(await heading(page).textContent()).toBe('Team Night shift');
      await page.goto('/teams');
      await page.getByRole('link', { name: 'Night shift' }).waitFor();
      await page.locator('#new-team').getByLabel('Name').fill('Night shift');
      await newPage(page, () => page.getByRole('button', { name: 'Create team' }).click());
      expect(await heading(page).textContent()).toMatch(/^409/);
    },
    LONG,
  );
});

describe('accessibility basics', () => {
  // Every page's fields are checked by axe in tests/ui-screens.test.ts (its `label` rule is critical there);
  // here what no screen of that walk shows: the column picker open, and the dialog opened from the list.
  it(
    'gives every visible field of the column picker and the new-ticket dialog an accessible name',
    async () => {
      const page = await as('admin');
      await page.goto('/tickets');
      await page.getByText('Columns', { exact: true }).click();
      let fields = await expectLabelled(page, '/tickets with the column picker open');
      await page.getByRole('link', { name: 'New ticket' }).click();
      await page.locator('dialog#new-ticket').getByLabel('Subject').waitFor();
      fields += await expectLabelled(page, 'the new-ticket dialog');
      expect(fields).toBeGreaterThan(20);
    },
    LONG,
  );

  it(
    'reaches the reply box and sends a reply with the keyboard alone',
    async () => {
      const page = await as(alice);
      await page.goto(`/tickets/${tk.refund.id}`);
      const active = () =>
        page.evaluate(() => {
          const e = (globalThis as any).document.activeElement;
          return e ? `${e.tagName}#${e.id}:${e.textContent.trim()}` : '';
        });
      let steps = 0;
      while (!(await active()).startsWith('TEXTAREA#reply-body') && steps++ < 40) await page.keyboard.press('Tab');
      expect(await active()).toMatch(/^TEXTAREA#reply-body/);
      await page.keyboard.type('Typed and sent from the keyboard.');
      // The minutes worked and the timer's two buttons (SPEC D4), the file picker (SPEC C4), then Send.
      for (const next of ['INPUT#reply-time-minutes:', 'BUTTON#:Start timer', 'BUTTON#:Reset timer']) {
        await page.keyboard.press('Tab');
        expect(await active()).toBe(next);
      }
      await page.keyboard.press('Tab');
      expect(await active()).toBe('INPUT#reply-attachments:');
      await page.keyboard.press('Tab');
      expect(await active()).toBe('BUTTON#:Send');
      await page.keyboard.press('Enter');
      const reply = page.locator('#history li', { hasText: 'Typed and sent from the keyboard.' });
      await reply.waitFor();
      expect(await reply.locator('.txn-what').textContent()).toBe('Reply by Alice Agent');
      await poll(() => page.locator('#reply-body').inputValue()).toBe(''); // a sent reply empties the box
    },
    LONG,
  );
});
