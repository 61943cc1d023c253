// The requester portal in a real browser (SPEC C2): a customer with no password writes in by
// mail, gets the autoreply from a real SMTP server, opens the link in it in Debian's Chromium
// (phone-sized), sees the history, replies with a file through the file input — and the agent
// finds that reply and its file in the API and on the ticket page.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signedIn } from './helpers/browser.js';
import { MAILGATE_TOKEN } from './helpers/mail.js';
import { mailTo } from './helpers/notify.js';
import { mailIn, portalPathIn } from './helpers/portal.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { until } from './helpers/wait.js';

const T = 20_000;

let sink: SmtpSink;
let s: TestServer;
let browser: Browser;

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, MAILGATE_TOKEN, OUTBOX_POLL_MS: '50' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await sink?.close();
});

describe('portal in Chromium', () => {
  it('the customer follows the autoreply link, replies with a file, and the agent sees both', async () => {
    const from = 'dana.customer@customer.example';
    const r = await mailIn(s, {
      from,
      name: 'Dana Customer',
      subject: 'Heating broken in room 12',
      body: 'It is 14 degrees in here.',
    });
    await s.api('POST', `/tickets/${r.ticket_id}/comment`, {
      body: { body: 'Internal: boiler vendor contract expired' },
    });
    const autoreply = await mailTo(sink, from, (m) => (m.parsed.text ?? '').includes(`#${r.ticket_id}`));
    const link = portalPathIn(autoreply);

    const context = await browser.newContext({
      baseURL: s.url,
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await page.goto(link);
    await expect.poll(() => page.locator('h1').innerText(), { timeout: T }).toBe('Heating broken in room 12');
    const history = page.locator('#portal-history');
    await expect.poll(() => history.innerText(), { timeout: T }).toContain('It is 14 degrees in here.');
    expect(await history.innerText()).toContain('Dana Customer');
    expect(await page.locator('body').innerText()).not.toContain('boiler vendor');
    // Phone-sized: nothing wider than the screen.
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );

    await page.getByLabel('Your message').fill('Photo of the thermostat attached.');
    await page
      .locator('input[type=file][name=attachments]')
      .setInputFiles({ name: 'thermostat.png', mimeType: 'image/png', buffer: Buffer.from('fake png bytes') });
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => history.innerText(), { timeout: T }).toContain('Photo of the thermostat attached.');
    expect(await history.locator('a', { hasText: 'thermostat.png' }).count()).toBe(1);
    // The form is ready for the next message: text and file cleared.
    expect(await page.getByLabel('Your message').inputValue()).toBe('');
    expect(await page.locator('input[type=file][name=attachments]').evaluate((i: any) => i.files.length)).toBe(0);
    await screenshot(page, 'portal-ticket-phone');

    // The file downloads from the portal page itself.
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: T }),
      history.locator('a', { hasText: 'thermostat.png' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('thermostat.png');
    await context.close();

    // The agent: the reply is a Correspond by Dana with the file, in the API and on the ticket page.
    const requesterId = (await s.api('GET', `/tickets/${r.ticket_id}`)).body.requester_id;
    const txns = (await s.api('GET', `/tickets/${r.ticket_id}/transactions`)).body.transactions as any[];
    const reply = txns.find((t) => t.body === 'Photo of the thermostat attached.');
    expect(reply).toMatchObject({ type: 'Correspond', creator_id: requesterId });
    expect(reply.attachments.map((a: any) => [a.filename, a.content_type])).toEqual([['thermostat.png', 'image/png']]);
    const file = await fetch(`${s.url}/attachments/${reply.attachments[0].id}`, {
      headers: { authorization: `Bearer ${s.adminToken}` },
    });
    expect(await file.text()).toBe('fake png bytes');

    const agent = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
    await agent.page.goto(`/tickets/${r.ticket_id}`);
    const staffHistory = agent.page.locator('#history');
    await expect.poll(() => staffHistory.innerText(), { timeout: T }).toContain('Photo of the thermostat attached.');
    expect(await staffHistory.innerText()).toContain('Reply by Dana Customer');
    expect(await staffHistory.locator('a', { hasText: 'thermostat.png' }).count()).toBe(1);
    await agent.context.close();
  });

  it('without JavaScript the reply form still posts and lands back on the page', async () => {
    const from = 'erik.customer@customer.example';
    const r = await mailIn(s, { from, name: 'Erik', subject: 'No JS here', body: 'Plain browser.' });
    const link = portalPathIn(await mailTo(sink, from, (m) => (m.parsed.text ?? '').includes(`#${r.ticket_id}`)));
    const context = await browser.newContext({ baseURL: s.url, javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(link);
    await page.getByLabel('Your message').fill('Sent without scripts.');
    await page
      .locator('input[type=file][name=attachments]')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('n') });
    await Promise.all([
      page.waitForURL((u) => u.pathname === link, { timeout: T }),
      page.getByRole('button', { name: 'Send' }).click(),
    ]);
    await until('the reply on the page', async () =>
      (await page.locator('#portal-history').innerText()).includes('Sent without scripts.'),
    );
    expect(await page.locator('#portal-history a', { hasText: 'notes.txt' }).count()).toBe(1);

    // A link that was tampered with is refused in words, with the way to a new one.
    const res = await page.goto(`${link.slice(0, -3)}AAA`);
    expect(res?.status()).toBe(403);
    expect(await page.locator('h1').innerText()).toBe('This link is not valid.');
    expect(await page.locator('main').innerText()).toContain('reply to any e-mail from us');
    await screenshot(page, 'portal-refused');
    await context.close();
  });
});
