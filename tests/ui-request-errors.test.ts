// When a request gets no usable answer — a proxy's 502 with an empty body, a proxy's HTML error
// page, a connection reset — the form it came from says so in words (SPEC C4): for the reply
// box below it, with the text kept, cleared on typing; the same for the ticket properties, the
// new-ticket dialog and the admin forms. A real HTTP proxy on 127.0.0.1 sits between Debian's
// Chromium and a real hxdesk and breaks the requests a test asks it to.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchBrowser, liveOpen, messageBox, screenshot, signedIn } from './helpers/browser.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

const T = 20_000;
const poll = { timeout: T, interval: 100 };

type Failure = 'empty-502' | 'html-502' | 'reset';
/** What nginx answers when its upstream is down. */
const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

interface Proxy {
  url: string;
  /** How many requests it has broken so far. */
  broken: number;
  /** Fails every request matching method and path, `how`, until heal(); the others pass through. */
  fail(method: string, path: RegExp, how: Failure): void;
  heal(): void;
  close(): Promise<void>;
}

/** A pass-through HTTP proxy that fails the requests it is told to, as a real proxy would. */
async function startProxy(upstream: string): Promise<Proxy> {
  const target = new URL(upstream);
  let rule: { method: string; path: RegExp; how: Failure } | null = null;
  const sockets = new Set<Socket>();
  const proxy: Proxy = {
    url: '',
    broken: 0,
    fail(method, path, how) {
      rule = { method, path, how };
    },
    heal() {
      rule = null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    if (rule && req.method === rule.method && rule.path.test(req.url ?? '')) {
      const { how } = rule;
      proxy.broken++;
      req.resume();
      req.on('end', () => {
        if (how === 'empty-502') res.writeHead(502, { 'content-length': '0' }).end();
        else if (how === 'html-502')
          res
            .writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(NGINX_502) })
            .end(NGINX_502);
        else req.socket.resetAndDestroy();
      });
      return;
    }
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

let s: TestServer;
let proxy: Proxy;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let ticketId = 0;

beforeAll(async () => {
  s = await startServer();
  proxy = await startProxy(s.url);
  browser = await launchBrowser();
  ({ context, page } = await signedIn(browser, proxy.url, ADMIN_EMAIL, ADMIN_PASSWORD));
  const queue = (await s.api('GET', '/queues')).body.queues[0].id;
  ticketId = (
    await s.api('POST', '/tickets', {
      // Open already: the first staff reply on a new ticket would add its new → open entry (SPEC D6).
      body: { queue_id: queue, subject: 'VPN drops every hour', description: 'Since the update.', status: 'open' },
    })
  ).body.ticket.id;
}, 60_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await proxy?.close();
  await s?.close();
});

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: '360px', width: 360, height: 740 },
];

/** The element is shown, and all of its width fits in the viewport (its words are readable without scrolling sideways). */
async function expectInView(p: Page, locator: ReturnType<Page['locator']>) {
  expect(await locator.isVisible()).toBe(true);
  const box = (await locator.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(p.viewportSize()!.width + 1);
}

const FAILURES: { how: Failure; words: RegExp }[] = [
  {
    how: 'empty-502',
    words:
      /^The server could not answer \(502 Bad Gateway\), so this may not have been saved\. What you entered is still here\. Try again in a moment\.$/,
  },
  {
    how: 'html-502',
    words:
      /^The server could not answer \(502 Bad Gateway\), so this may not have been saved\. What you entered is still here\. Try again in a moment\.$/,
  },
  {
    how: 'reset',
    words:
      /^Could not reach the server \(the connection failed\), so this may not have been saved\. What you entered is still here\./,
  },
];

describe.each(WIDTHS)('the reply box at $name', (size) => {
  const error = () => page.locator('#reply-error');
  const entries = () => page.getByRole('list', { name: 'History' }).locator('li.txn');

  beforeEach(async () => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto(`/tickets/${ticketId}`);
    await messageBox(page).waitFor();
    // The page's scripts have run (htmx took the form over): a Send clicked before that posts the
    // form as a plain page, which a broken proxy answers with its own page and no words in the box.
    await liveOpen(page, T);
  });

  it.each(FAILURES)(
    '$how: says so in words below the box, keeps the text, clears on typing',
    async ({ how, words }) => {
      const before = await entries().count();
      const broken = proxy.broken;
      const text = `Please reconnect and tell me if it drops again (${how}, ${size.name}).`;
      await messageBox(page).fill(text);
      proxy.fail('POST', /^\/tickets\/\d+\/comment$/, how);
      await page.getByRole('button', { name: 'Send' }).click();

      await expect.poll(() => error().innerText(), poll).toMatch(words);
      proxy.heal();
      expect(proxy.broken).toBeGreaterThan(broken);
      expect(await error().innerText()).not.toMatch(/nginx|<|Bad Gateway<\/h1>/);
      await expectInView(page, error());
      const box = (await messageBox(page).boundingBox())!;
      expect((await error().boundingBox())!.y).toBeGreaterThan(box.y + box.height);
      expect(await messageBox(page).inputValue()).toBe(text);
      expect(await entries().count()).toBe(before);
      await screenshot(page, `reply-error-${how}-${size.name}`);

      await messageBox(page).press('End');
      await messageBox(page).pressSequentially('!');
      await expect.poll(() => error().innerText(), poll).toBe('');
      expect(await error().isVisible()).toBe(false);
      expect(await messageBox(page).inputValue()).toBe(`${text}!`);

      // Through the working proxy the same text goes out.
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => entries().count(), poll).toBe(before + 1);
      await expect.poll(() => messageBox(page).inputValue(), poll).toBe('');
    },
    60_000,
  );
});

describe('every htmx form, not only the reply box', () => {
  beforeEach(async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('a ticket property: a 502 with an empty body is said under the field, the value stays, typing clears it', async () => {
    await page.goto(`/tickets/${ticketId}`);
    const props = page.getByRole('complementary', { name: 'Ticket properties' });
    const priority = props.getByLabel('Priority');
    await priority.waitFor();
    proxy.fail('PATCH', new RegExp(`^/tickets/${ticketId}$`), 'empty-502');
    await priority.fill('42');
    await priority.press('Tab');
    const error = page.locator('#err-priority');
    await expect
      .poll(() => error.innerText(), poll)
      .toMatch(/^The server could not answer \(502 Bad Gateway\), so this may not have been saved\./);
    await expectInView(page, error);
    proxy.heal();
    expect(await priority.inputValue()).toBe('42');
    expect((await s.api('GET', `/tickets/${ticketId}`)).body.priority).toBe(0);
    await priority.press('End');
    await priority.pressSequentially('1');
    await expect.poll(() => error.innerText(), poll).toBe('');
  });

  it('a refused property value (priority 150) is said under the field and stays there, not silently replaced', async () => {
    await page.goto(`/tickets/${ticketId}`);
    const props = page.getByRole('complementary', { name: 'Ticket properties' });
    const priority = props.getByLabel('Priority');
    await priority.waitFor();
    const before = (await s.api('GET', `/tickets/${ticketId}`)).body.priority;
    await priority.fill('150');
    await priority.press('Tab');
    const error = page.locator('#err-priority');
    await expect.poll(() => error.innerText(), poll).not.toBe('');
    expect(await error.innerText()).toMatch(/100/);
    await expectInView(page, error);
    expect(await priority.inputValue()).toBe('150');
    expect((await s.api('GET', `/tickets/${ticketId}`)).body.priority).toBe(before);
    await priority.fill('60');
    await priority.press('Tab');
    await expect.poll(async () => (await s.api('GET', `/tickets/${ticketId}`)).body.priority, poll).toBe(60);
    await expect.poll(() => page.locator('#err-priority').innerText(), poll).toBe('');
    expect(await props.getByLabel('Priority').inputValue()).toBe('60');
  });

  it('the new-ticket dialog at 360px: a proxy error page is said inside the form, every field kept, then it creates', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'New ticket' }).click();
    const dialog = page.getByRole('dialog', { name: 'New ticket' });
    await dialog.locator('#new-ticket-form').waitFor();
    await dialog.getByLabel('Subject').fill('Printer offline');
    await dialog.getByLabel('Description').fill('Third floor, since 9:00.');
    proxy.fail('POST', /^\/tickets$/, 'html-502');
    await dialog.getByRole('button', { name: 'Create ticket' }).click();
    const words = dialog.locator('#new-ticket-form .request-error');
    await expect
      .poll(() => words.innerText(), poll)
      .toMatch(
        /^The server could not answer \(502 Bad Gateway\), so this may not have been saved\. What you entered is still here\./,
      );
    await expectInView(page, words);
    expect(await dialog.getByLabel('Subject').inputValue()).toBe('Printer offline');
    expect(await dialog.getByLabel('Description').inputValue()).toBe('Third floor, since 9:00.');
    expect(await dialog.isVisible()).toBe(true);
    proxy.heal();
    await screenshot(page, 'new-ticket-error-html-502-360px');
    await dialog.getByLabel('Subject').press('End');
    await dialog.getByLabel('Subject').pressSequentially('!');
    await expect.poll(() => words.innerText(), poll).toBe('');
    await dialog.getByRole('button', { name: 'Create ticket' }).click();
    await page.waitForURL((u) => /^\/tickets\/\d+$/.test(u.pathname), { timeout: T });
    const created = Number(new URL(page.url()).pathname.split('/').pop());
    expect((await s.api('GET', `/tickets/${created}`)).body.subject).toBe('Printer offline!');
  });

  it("an admin form: a reset connection is said in the form's error line; the typed name stays", async () => {
    await page.goto('/teams');
    const form = page.locator('#new-team');
    await form.getByLabel('Name').fill('Field service');
    proxy.fail('POST', /^\/teams$/, 'reset');
    await form.getByRole('button', { name: 'Create team' }).click();
    const error = page.locator('#new-team-error');
    await expect
      .poll(() => error.innerText(), poll)
      .toMatch(
        /^Could not reach the server \(the connection failed\), so this may not have been saved\. What you entered is still here\./,
      );
    await expectInView(page, error);
    proxy.heal();
    expect(await form.getByLabel('Name').inputValue()).toBe('Field service');
    expect(new URL(page.url()).pathname).toBe('/teams');
    expect((await s.api('GET', '/teams')).body.teams.map((t: { name: string }) => t.name)).not.toContain(
      'Field service',
    );
  });

  it('a link outside any form: a 502 page notice in words, gone after the next successful request', async () => {
    await page.goto('/tickets');
    proxy.fail('GET', /^\/dashboards$/, 'empty-502');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboards' }).click();
    const notice = page.locator('.page-notice');
    await expect
      .poll(() => notice.innerText(), poll)
      .toBe('Could not load this: the server answered 502 Bad Gateway without an explanation. Try again in a moment.');
    await expectInView(page, notice);
    expect(new URL(page.url()).pathname).toBe('/tickets');
    proxy.heal();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboards' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboards', { timeout: T });
    await expect.poll(() => page.locator('.page-notice').count(), poll).toBe(0);
  });
});
