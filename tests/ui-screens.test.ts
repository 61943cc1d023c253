// Every screen of hxdesk in Chromium at a desktop width (1280 px) and a phone width (360 px):
// axe-core finds no serious or critical violation, the page never scrolls sideways, there is
// exactly one h1, and a "Skip to content" link is the first stop of Tab and moves focus to main.
// One server, one browser, one context per kind of person; a screenshot of each screen per width
// (.artifacts/screens/screen-<name>-<width>.png) for a reviewer. The axe counts of every screen go
// to .artifacts/axe-counts.json (what the decision record 036 quotes).
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeCheck } from './helpers/axe.js';
import { launchBrowser, SCREENSHOTS, screenshot, signedIn } from './helpers/browser.js';
import { MAILGATE_TOKEN } from './helpers/mail.js';
import { mailIn } from './helpers/portal.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer, okApi } from './helpers/server.js';

const T = 20_000;
const WIDTHS = [1280, 360];
const REQUESTER = { email: 'rita.requester@customer.example', password: 'requester-password-1' };
const NY = { email: 'nora.newyork@example.com', password: 'new-york-password-1' };

let s: TestServer;
let browser: Browser;
let staff: { context: BrowserContext; page: Page };
let requester: { context: BrowserContext; page: Page };
let anonymous: { context: BrowserContext; page: Page };
const ids = {
  ticket: 0,
  portalTicket: 0,
  team: 0,
  field: 0,
  dashboard: 0,
  template: 0,
  scrip: 0,
  outbox: 0,
  intake: 0,
  user: 0,
  response: 0,
};
const counts: Record<string, { width: number; serious: number; total: number; rules: string[] }[]> = {};

const api = <T = any>(method: string, path: string, body?: unknown) => okApi(s)<T>(method, path, body);

interface Screen {
  name: string;
  who: () => { page: Page };
  path: () => string;
  ready?: (p: Page) => Promise<void>;
}

const SCREENS: Screen[] = [
  { name: 'login', who: () => anonymous, path: () => '/login' },
  {
    name: 'ticket-list',
    who: () => staff,
    path: () => '/tickets',
    ready: async (p) => {
      await p.locator('#tickets-table').waitFor({ timeout: T });
    },
  },
  { name: 'ticket', who: () => staff, path: () => `/tickets/${ids.ticket}` },
  {
    name: 'new-ticket-dialog',
    who: () => staff,
    path: () => '/tickets',
    ready: async (p) => {
      await p.getByRole('link', { name: 'New ticket' }).click();
      await p.locator('dialog[open] #new-ticket-form select[name=queue_id]').waitFor({ timeout: T });
    },
  },
  { name: 'new-ticket-page', who: () => staff, path: () => '/tickets/new' },
  { name: 'dashboards', who: () => staff, path: () => '/dashboards' },
  { name: 'dashboard', who: () => staff, path: () => `/dashboards/${ids.dashboard}` },
  { name: 'settings', who: () => staff, path: () => '/settings' },
  { name: 'users', who: () => staff, path: () => '/users' },
  { name: 'user', who: () => staff, path: () => `/users/${ids.user}` },
  { name: 'teams', who: () => staff, path: () => '/teams' },
  { name: 'team', who: () => staff, path: () => `/teams/${ids.team}` },
  { name: 'queues', who: () => staff, path: () => '/queues' },
  { name: 'queue', who: () => staff, path: () => '/queues/1' },
  { name: 'custom-fields', who: () => staff, path: () => '/custom-fields' },
  { name: 'custom-field', who: () => staff, path: () => `/custom-fields/${ids.field}` },
  { name: 'templates', who: () => staff, path: () => '/templates' },
  { name: 'template', who: () => staff, path: () => `/templates/${ids.template}` },
  { name: 'scrips', who: () => staff, path: () => '/scrips' },
  { name: 'scrip', who: () => staff, path: () => `/scrips/${ids.scrip}` },
  { name: 'responses', who: () => staff, path: () => '/responses' },
  { name: 'response', who: () => staff, path: () => `/responses/${ids.response}` },
  {
    name: 'ticket-list-selected',
    who: () => staff,
    path: () => '/tickets?status=new,open,stalled',
    ready: async (p) => {
      await p.getByRole('checkbox', { name: 'Select all tickets on this page' }).check();
      await p
        .locator('#bulk-count')
        .filter({ hasText: /^1\d selected$/ })
        .waitFor({ timeout: T });
    },
  },
  { name: 'outbox', who: () => staff, path: () => '/outbox' },
  { name: 'mail-intake', who: () => staff, path: () => '/mail/intake' },
  { name: 'mail-intake-entry', who: () => staff, path: () => `/mail/intake/${ids.intake}` },
  { name: 'portal-list', who: () => requester, path: () => '/portal' },
  { name: 'portal-ticket', who: () => requester, path: () => `/portal/tickets/${ids.portalTicket}` },
];

beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN });
  const general = 1;
  const alice = await api('POST', '/users', { email: 'alice.agent@example.com', name: 'Alice Agent', role: 'agent' });
  ids.user = alice.id;
  ids.team = (await api('POST', '/teams', { name: 'Hardware', description: 'Printers, screens and keyboards' })).id;
  ids.field = (
    await api('POST', '/custom-fields', { key: 'size', name: 'Size', type: 'select', options: ['S', 'M', 'L'] })
  ).id;
  ids.dashboard = (
    await api('POST', '/dashboards', {
      name: 'Morning board',
      widgets: [
        { kind: 'status_counts', config: {} },
        { kind: 'queue_counts', config: {} },
        { kind: 'team_workload', config: {} },
        { kind: 'my_tickets', config: {} },
      ],
    })
  ).id;
  ids.template = (await api('GET', '/templates')).templates[0].id;
  ids.scrip = (await api('GET', '/scrips')).scrips[0].id;
  ids.response = (
    await api('POST', '/responses', {
      name: 'Printer fixed',
      shared: true,
      set_status: 'resolved',
      body: 'Hello {{ ticket.requester.name }}, the printer is fixed.',
    })
  ).id;
  const rq = await api('POST', '/users', {
    email: REQUESTER.email,
    name: 'Rita Requester',
    role: 'requester',
    password: REQUESTER.password,
  });
  await api('POST', '/users', { email: NY.email, name: 'Nora New York', role: 'agent', password: NY.password });
  for (let i = 0; i < 12; i++) {
    await api('POST', '/tickets', {
      queue_id: general,
      subject: `Screen check ticket ${i} with a rather long subject to fill the column`,
      requester_id: rq.id,
    });
  }
  const t = await api('POST', '/tickets', {
    queue_id: general,
    subject: 'Printer on floor 3 prints every page twice',
    requester_id: rq.id,
    owner_id: alice.id,
    team_id: ids.team,
    description: 'Since Monday every job comes out twice.\nThe queue shows one job.',
  });
  ids.ticket = t.ticket.id;
  ids.portalTicket = t.ticket.id;
  await api('POST', `/tickets/${ids.ticket}/comment`, {
    internal: false,
    body: "Could you send the printer's model number?",
  });
  await api('POST', `/tickets/${ids.ticket}/comment`, {
    internal: true,
    body: 'Internal: probably the duplex driver again.',
  });
  const mail = await mailIn(s, {
    from: 'walter.mail@customer.example',
    name: 'Walter Mail',
    subject: 'Mail from outside',
    body: 'Hello, my screen is dark.',
  });
  void mail;
  ids.intake = (await api('GET', '/mail/intake')).intake[0].id;
  browser = await launchBrowser();
  staff = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
  requester = await signedIn(browser, s.url, REQUESTER.email, REQUESTER.password);
  const ctx = await browser.newContext({ baseURL: s.url, viewport: { width: 1280, height: 800 } });
  anonymous = { context: ctx, page: await ctx.newPage() };
});

afterAll(async () => {
  if (Object.keys(counts).length) {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    fs.writeFileSync(path.join(SCREENSHOTS, '..', 'axe-counts.json'), JSON.stringify(counts, null, 1));
  }
  await browser?.close();
  await s?.close();
});

describe('every screen at 1280 px and 360 px', () => {
  for (const screen of SCREENS) {
    it(screen.name, async () => {
      const { page } = screen.who();
      const problems: string[] = [];
      counts[screen.name] = [];
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: width < 400 ? 740 : 800 });
        await page.goto(screen.path());
        await page.locator('main').waitFor({ timeout: T });
        await screen.ready?.(page);
        const axe = await axeCheck(page);
        counts[screen.name].push({
          width,
          serious: axe.serious.length,
          total: axe.all.length,
          rules: axe.all.map((v) => `${v.id}:${v.impact}`),
        });
        if (axe.serious.length) problems.push(`${width}px axe:\n${axe.message}`);
        const scroll = await page.evaluate(() => {
          const d = (globalThis as any).document;
          const iw = (globalThis as any).innerWidth as number;
          // What sticks out (the innermost elements only), to say where the fix goes.
          const out = [...d.querySelectorAll('main *')]
            .filter(
              (el: any) => el.getBoundingClientRect().right > iw + 0.5 && !el.closest('.table-scroll, .table-wrap'),
            )
            .filter((el: any, _i: number, all: any[]) => !all.some((o: any) => o !== el && el.contains(o)))
            .slice(0, 5)
            .map(
              (el: any) =>
                `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className ? `.${String(el.className).replace(/ /g, '.')}` : ''} right=${Math.round(el.getBoundingClientRect().right)}`,
            );
          return { sw: d.documentElement.scrollWidth as number, iw, out };
        });
        if (scroll.sw > scroll.iw)
          problems.push(
            `${width}px: the page scrolls sideways (${scroll.sw} > ${scroll.iw}): ${scroll.out.join(', ')}`,
          );
        const h1 = await page.locator('h1').count();
        if (h1 !== 1) problems.push(`${width}px: ${h1} h1 elements`);
        await screenshot(page, `screen-${screen.name}-${width}`);
      }
      // The skip link: the first focusable element, the first Tab stop of a freshly loaded page
      // (unless the page put focus in a field, as the sign-in form does), and it moves focus to main.
      if (screen.name !== 'new-ticket-dialog') {
        await page.goto(screen.path());
        await page.locator('main').waitFor({ timeout: T });
        const firstInDom = await page.evaluate(() =>
          (
            (globalThis as any).document.querySelector(
              'a[href], button, input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex="-1"])',
            ) as any
          )?.innerText?.trim(),
        );
        if (firstInDom !== 'Skip to content')
          problems.push(`the first focusable element is ${JSON.stringify(firstInDom)}, not "Skip to content"`);
        const autofocused = await page.evaluate(
          () => (globalThis as any).document.activeElement !== (globalThis as any).document.body,
        );
        if (autofocused) await page.locator('a.skip-link').focus();
        else await page.keyboard.press('Tab');
        const first = await page.evaluate(() => ((globalThis as any).document.activeElement as any)?.innerText?.trim());
        if (first !== 'Skip to content')
          problems.push(`the first Tab stop is ${JSON.stringify(first)}, not "Skip to content"`);
        else {
          expect(await page.locator('a.skip-link').isVisible()).toBe(true);
          await page.keyboard.press('Enter');
          const inMain = await page.evaluate(() => (globalThis as any).document.activeElement?.id === 'main');
          if (!inMain) problems.push('"Skip to content" did not move focus to main');
        }
      }
      expect(problems, problems.join('\n')).toEqual([]);
    });
  }

  // SPEC D6: the conversation before the properties on a phone, as in the page's (and Tab's) order.
  it('at 360 px: the ticket page shows the conversation (history, reply box) before the properties, the reply box keeps its size', async () => {
    const { page } = staff;
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`/tickets/${ids.ticket}`);
    const side = (await page.locator('.ticket-side').boundingBox())!;
    const history = (await page.locator('#history').boundingBox())!;
    const reply = (await page.locator('#reply-body').boundingBox())!;
    expect(history.y + history.height).toBeLessThanOrEqual(reply.y);
    expect(reply.y + reply.height).toBeLessThanOrEqual(side.y);
    expect(side.width).toBeGreaterThan(300);
    expect(reply.width).toBeGreaterThan(300);
    expect(reply.height).toBeGreaterThan(100);
    // At 1280 px the properties stay a column on the right of the history.
    await page.setViewportSize({ width: 1280, height: 800 });
    const wideSide = (await page.locator('.ticket-side').boundingBox())!;
    const wideHistory = (await page.locator('#history').boundingBox())!;
    expect(wideSide.x).toBeGreaterThan(wideHistory.x + wideHistory.width);
    expect(Math.abs(wideSide.y - wideHistory.y)).toBeLessThan(40);
  });

  // SPEC D6: two-line rows at 360 px, no sideways scrolling (decision 055).
  it('at 360 px: the ticket list scrolls down in its own box, never sideways, and its header stays in sight', async () => {
    const { page } = staff;
    await page.setViewportSize({ width: 360, height: 560 }); // a phone in landscape-ish: the box is shorter than the list
    await page.goto('/tickets');
    const box = page.locator('.table-scroll');
    await box.waitFor({ timeout: T });
    const m = await box.evaluate((el: any) => ({
      sh: el.scrollHeight,
      ch: el.clientHeight,
      sw: el.scrollWidth,
      cw: el.clientWidth,
    }));
    expect(m.sw).toBeLessThanOrEqual(m.cw); // each row fits the screen: nothing to scroll sideways
    expect(m.sh).toBeGreaterThan(m.ch); // it scrolls down inside its box
    await box.evaluate((el: any) => {
      el.scrollTop = 200;
    });
    await page.waitForTimeout(50);
    const top = (await box.boundingBox())!.y;
    const head = (await page.locator('#tickets-table thead th').first().boundingBox())!;
    expect(Math.abs(head.y - top)).toBeLessThanOrEqual(2); // stuck to the top of the scrolled box
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      360,
    );
    await screenshot(page, 'screen-ticket-list-scrolled-360');
  });

  it('at 360 px: the new-ticket dialog fits the screen and scrolls inside itself', async () => {
    const { page } = staff;
    await page.setViewportSize({ width: 360, height: 640 });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'New ticket' }).click();
    const dialog = page.locator('dialog[open]');
    await dialog.locator('#new-ticket-form select[name=queue_id]').waitFor({ timeout: T });
    const b = (await dialog.boundingBox())!;
    expect(b.x).toBeGreaterThanOrEqual(0);
    expect(b.x + b.width).toBeLessThanOrEqual(360);
    expect(b.y).toBeGreaterThanOrEqual(0);
    expect(b.y + b.height).toBeLessThanOrEqual(640);
    expect(await dialog.evaluate((el: any) => (globalThis as any).getComputedStyle(el).overflowY)).toBe('auto');
    await page.keyboard.press('Escape');
  });

  it("times: relative words, the exact minute in the reader's zone on hover (America/New_York), UTC in JSON", async () => {
    const nora = await signedIn(browser, s.url, NY.email, NY.password);
    await nora.page.goto('/settings');
    await nora.page.getByLabel('Time zone').fill('America/New_York');
    await nora.page.getByRole('button', { name: 'Save', exact: true }).click();
    await nora.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: T });
    await nora.page.goto(`/tickets/${ids.ticket}`);
    const created = (await api('GET', `/tickets/${ids.ticket}`)).created_at as string;
    expect(created).toMatch(/Z$/); // the JSON stays UTC
    const time = nora.page.locator('#history time').first();
    expect(await time.getAttribute('datetime')).toBe(created);
    const ny = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'America/New_York',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .format(new Date(created))
      .replace(',', '');
    expect(await time.getAttribute('title')).toMatch(new RegExp(`^${ny} E[SD]T$`));
    expect(await time.innerText()).toMatch(/^(just now|\d+ min ago)$/);
    // The list's Updated cell: the same kind of time.
    await nora.page.goto('/tickets');
    const cell = nora.page.locator('#tickets-table tbody td.date time').first();
    expect(await cell.getAttribute('title')).toMatch(/ E[SD]T$/);
    await nora.context.close();
    // The admin (no zone chosen) sees UTC, said so.
    await staff.page.goto(`/tickets/${ids.ticket}`);
    expect(await staff.page.locator('#history time').first().getAttribute('title')).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );
  });

  it('relative times keep up with a page left open: ten minutes later the history says so', async () => {
    const { context, page } = await signedIn(browser, s.url, NY.email, NY.password);
    try {
      await page.clock.install({ time: new Date() });
      await page.goto(`/tickets/${ids.ticket}`);
      const time = page.locator('#history time').first();
      expect(await time.innerText()).toMatch(/^(just now|\d min ago)$/);
      const title = await time.getAttribute('title');
      await page.clock.fastForward('10:00');
      await expect.poll(() => time.innerText(), { timeout: T }).toMatch(/^1\d min ago$/);
      expect(await time.getAttribute('title')).toBe(title); // the exact time does not move
    } finally {
      await context.close();
    }
  });

  it('admin forms say "Saved" (role=status) after a save; a refused value is said and stays', async () => {
    const { page } = staff;
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const [path, field, value] of [
      ['/queues/1', 'Description', 'Everything else'],
      [`/teams/${ids.team}`, 'Description', 'Printers and screens'],
      [`/users/${ids.user}`, 'Name', 'Alice A. Agent'],
      [`/custom-fields/${ids.field}`, 'Name', 'T-shirt size'],
      [`/templates/${ids.template}`, 'Description', 'Sent when a ticket is opened'],
      [`/scrips/${ids.scrip}`, 'Description', 'Tell the requester'],
    ] as const) {
      await page.goto(path);
      const form = page
        .locator('main form')
        .filter({ has: page.getByRole('button', { name: 'Save', exact: true }) })
        .first();
      await form.getByLabel(field, { exact: true }).fill(value);
      await form.getByRole('button', { name: 'Save', exact: true }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Saved.' })
        .waitFor({ timeout: 8000 })
        .catch((e) => {
          throw new Error(`${path}: no Saved (${page.url()}): ${e.message.split('\\n')[0]}`);
        });
      expect(new URL(page.url()).pathname).toBe(path);
      expect(
        await page
          .locator('main form')
          .filter({ has: page.getByRole('button', { name: 'Save', exact: true }) })
          .first()
          .getByLabel(field, { exact: true })
          .inputValue(),
      ).toBe(value);
    }
    // Refused: the error is said in the form, the typed value stays, nothing says Saved.
    await page.goto('/queues/1');
    const form = page.locator('#edit-queue');
    await form.getByLabel('Name', { exact: true }).fill('N'.repeat(101)); // the browser lets it through, the server refuses it
    await form.getByLabel('Description', { exact: true }).fill('Kept after a refusal');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    // …once, under the field itself (SPEC D6), which is marked invalid and described by it; the
    // form's error box does not say it again.
    const name = form.getByLabel('Name', { exact: true });
    await expect.poll(() => name.getAttribute('aria-invalid'), { timeout: T }).toBe('true');
    const note = page.locator(`#${await name.getAttribute('aria-describedby')}`);
    expect(await note.innerText()).toBe('Name must be at most 100 characters long');
    expect(await page.locator('#edit-queue-error').innerText()).toBe('');
    const [fieldBox, noteBox] = [(await name.boundingBox())!, (await note.boundingBox())!];
    expect(noteBox.y).toBeGreaterThanOrEqual(fieldBox.y + fieldBox.height - 1);
    expect(noteBox.y).toBeLessThan(fieldBox.y + fieldBox.height + 40);
    expect(await form.getByLabel('Description', { exact: true }).inputValue()).toBe('Kept after a refusal');
    expect(await form.getByLabel('Name', { exact: true }).inputValue()).toBe('N'.repeat(101));
    expect(await page.getByRole('status').filter({ hasText: 'Saved.' }).count()).toBe(0);
  }, 90_000);
});
