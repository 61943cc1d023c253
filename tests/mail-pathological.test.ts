import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signedIn } from './helpers/browser.js';
import {
  base64Lines,
  entity,
  envelope,
  get,
  keptOf,
  MAILGATE_TOKEN,
  postMail,
  sha256,
  uuencode,
} from './helpers/mail.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startServer, type TestServer } from './helpers/server.js';

// Issue 12 §1 last point and §3: a message whose text is huge or pathological still becomes a
// ticket an agent can use; one that cannot be read in time is kept all the same. (How long any
// of this takes is measured by bench/mail-bomb.ts, never asserted here.)

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ MAILGATE_TOKEN, MAIL_SENDER_MAX_PER_HOUR: '100000' });
});
afterAll(async () => {
  await s.close();
});

describe('huge and pathological text', () => {
  it("NUL bytes in the subject, the sender's name and the text (which PostgreSQL text cannot hold) become U+FFFD; the raw message is kept as it came", async () => {
    const raw = Buffer.concat([
      entity(
        envelope({
          From: 'Nu\u0000ll Sender <nul.sender@customer.example>',
          Subject: 'Zero\u0000byte subject',
          'Content-Type': 'text/plain; charset=utf-8',
        }),
        'Before\u0000after, and\u0000\u0000twice.\r\n',
      ),
    ]);
    const res = await postMail(s, raw);
    expect(res.status, res.text).toBe(201);
    const kept = await keptOf(s, res.body);
    expect(kept.body).toBe('Before\ufffdafter, and\ufffd\ufffdtwice.');
    const ticket = await get(s, `/tickets/${res.body.ticket_id}`);
    expect(ticket.subject).toBe('Zero\ufffdbyte subject');
    const requester = await get(s, `/users/${ticket.requester_id}`);
    expect(requester.name).not.toContain('\u0000');
    const intake = await get(s, '/mail/intake?limit=1');
    expect(intake.intake[0]).toMatchObject({ verdict: 'created', ticket_id: res.body.ticket_id });
    expect((await get(s, `/mail/intake/${intake.intake[0].id}`)).raw).toBe(raw.toString('utf8'));
  });

  it('the HTML bomb (<div> × 160,000, base64, 1 MiB) becomes a ticket: no text to show, the HTML kept whole', async () => {
    const html = Buffer.from('<div>'.repeat(160_000));
    const res = await postMail(
      s,
      entity(
        { ...envelope(), 'Content-Type': 'text/html; charset=utf-8', 'Content-Transfer-Encoding': 'base64' },
        base64Lines(html),
      ),
    );
    expect(res.status, res.text).toBe(201);
    const kept = await keptOf(s, res.body);
    expect(kept.body).toBe('');
    expect(kept.files.map((f) => [f.filename, sha256(f.content)])).toEqual([['message.html', sha256(html)]]);
    expect(res.body.rule).toBe('new ticket; default queue General');
  });

  it('a 100 KB uuencoded block in the text is a file; the text keeps only the words around it', async () => {
    const data = randomBytes(100 * 1024);
    const text = `Here is the dump.\r\n\r\n${uuencode('dump.bin', data)}\r\n\r\nThanks, Carla\r\n`;
    const kept = await keptOf(
      s,
      (await postMail(s, entity({ ...envelope(), 'Content-Type': 'text/plain' }, text))).body,
    );
    expect(kept.body).toBe('Here is the dump.\n\n\nThanks, Carla');
    expect(kept.files.map((f) => [f.filename, f.content_type, sha256(f.content)])).toEqual([
      ['dump.bin', 'application/octet-stream', sha256(data)],
    ]);
  });

  let big: { ticket_id: number; transaction_id: number };
  const PUNCTUATION = Array.from({ length: 100_000 }, (_, i) => '.,;:!?-'.repeat(1 + (i % 9))).join('\r\n');

  it('100,000 lines of punctuation (3.5 MB): the ticket keeps the first million characters as text and all of it as message.txt', async () => {
    const res = await postMail(
      s,
      entity(
        { ...envelope({ Subject: 'Punctuation flood' }), 'Content-Type': 'text/plain' },
        `Start of the flood\r\n${PUNCTUATION}\r\nEnd of the flood\r\n`,
      ),
    );
    expect(res.status, res.text).toBe(201);
    big = res.body;
    const kept = await keptOf(s, big);
    expect(kept.body.length).toBeLessThan(1_000_100);
    expect(kept.body).toMatch(/^Start of the flood\n/);
    expect(kept.body).toMatch(/\n\n\[… [\d]+ more characters: the whole text is attached as message\.txt\]$/);
    const whole = kept.files.find((f) => f.filename === 'message.txt')!.content.toString();
    expect(whole.split('\n')).toHaveLength(100_002);
    expect(whole.endsWith('End of the flood')).toBe(true);
  });

  it('its page shows the start and "Show all", not 27,000 lines', async () => {
    const page = await s.api('GET', `/tickets/${big.ticket_id}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Start of the flood');
    expect(page.text).not.toContain('End of the flood');
    expect(page.text).toMatch(/Show all \(27,\d{3} lines, [\d,]+ KB\)/);
    expect(page.text.length).toBeLessThan(60_000);
  });

  it('"Show all" is the whole text: JSON, an htmx fragment in place, and a page without JavaScript', async () => {
    const url = `/tickets/${big.ticket_id}/transactions/${big.transaction_id}`;
    const json = (await get(s, url)).transaction;
    expect(json.body).toMatch(/the whole text is attached as message\.txt\]$/);
    const fragment = await s.api('GET', url, { headers: { 'hx-request': 'true' } });
    expect(fragment.text).toMatch(
      new RegExp(`^<div class="txn-body" id="txn-body-${big.transaction_id}">Start of the flood`),
    );
    expect(fragment.text).toContain('the whole text is attached as message.txt]</div>');
    expect(fragment.text).not.toContain('Show all');
    const page = await s.api('GET', url, { headers: { accept: 'text/html' } });
    expect(page.text).toMatch(/^<!DOCTYPE html>/i);
    expect(page.text).toContain('the whole text is attached as message.txt]');
    // A requester sees only what their ticket's history shows them; an unknown transaction is 404.
    expect((await s.api('GET', `/tickets/${big.ticket_id}/transactions/999999`)).status).toBe(404);
    const stranger = await s.user('requester');
    expect((await s.api('GET', url, { token: stranger.token })).status).toBe(404);
  });

  describe('in the browser', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('the ticket page is a page an agent can use; "Show all" unfolds the text in place', async () => {
      const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
      await page.goto(`/tickets/${big.ticket_id}`);
      const height = () =>
        page.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { scrollHeight: number } } }).document
              .documentElement.scrollHeight,
        );
      expect(await height()).toBeLessThan(4000);
      await screenshot(page, 'ticket-folded-flood');
      await page.getByRole('link', { name: /Show all \(27,\d{3} lines/ }).click();
      await page.getByText('the whole text is attached as message.txt]', { exact: false }).waitFor();
      expect(await height()).toBeGreaterThan(100_000);
      expect(page.url()).toMatch(new RegExp(`/tickets/${big.ticket_id}$`)); // unfolded in place
      await context.close();
    });

    it('at 360 px the page fits the screen, the folded text wraps inside its box and "Show all" is on screen', async () => {
      const { context, page } = await signedIn(browser, s.url, ADMIN_EMAIL, ADMIN_PASSWORD);
      await page.setViewportSize({ width: 360, height: 740 });
      await page.goto(`/tickets/${big.ticket_id}`);
      const body = page.locator(`#txn-body-${big.transaction_id}`);
      const overflow = await body.evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const link = await page.getByRole('link', { name: /Show all/ }).boundingBox();
      expect(link!.x).toBeGreaterThanOrEqual(0);
      expect(link!.x + link!.width).toBeLessThanOrEqual(360);
      const page360 = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
            .scrollWidth,
      );
      expect(page360).toBeLessThanOrEqual(360); // the properties stack under the history: no sideways scroll
      await screenshot(page, 'ticket-folded-flood-360');
      await context.close();
    });
  });
});

describe('a message that cannot be read in time is kept all the same', () => {
  let slow: TestServer;
  beforeAll(async () => {
    slow = await startServer({ MAILGATE_TOKEN, MAIL_PARSE_TIMEOUT_MS: '1' });
  });
  afterAll(async () => {
    await slow.close();
  });

  it('its headers make the ticket, its text says why, the raw message is attached whole, the intake log says so', async () => {
    const raw = entity(
      {
        ...envelope({ Subject: 'Too slow to read' }),
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Transfer-Encoding': 'base64',
      },
      base64Lines(Buffer.from('<p>words</p>'.repeat(300_000))),
    );
    const res = await postMail(slow, raw);
    expect(res.status, res.text).toBe(201);
    expect(res.body.rule).toBe(
      'new ticket; default queue General; text not read (reading it took longer than 0.001 s): the raw message is attached',
    );
    const ticket = await get(slow, `/tickets/${res.body.ticket_id}`);
    expect(ticket).toMatchObject({
      subject: 'Too slow to read',
      description:
        "hxdesk could not read this message's text: reading it took longer than 0.001 s. The original message is attached as message.eml.",
    });
    const kept = await keptOf(slow, res.body);
    expect(kept.files.map((f) => [f.filename, f.content_type, sha256(f.content)])).toEqual([
      ['message.eml', 'message/rfc822', sha256(raw)],
    ]);
    // The same message again is a duplicate, not a second ticket.
    expect((await postMail(slow, raw)).body).toMatchObject({ duplicate: true, ticket_id: res.body.ticket_id });
  });
});
