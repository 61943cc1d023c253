// docs/decisions/045: an app's settings are its own (two apps in one process each put their own
// URL, sender and portal-link signature in their mail), and the delivery worker wakes on the
// store's change signal, so mail made without an HTTP request (IMAP, another process on the same
// PostgreSQL database) leaves at once, not at the next poll.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDovecot, type Dovecot } from './helpers/dovecot.js';
import { PORTAL_LINK, portalPathIn } from './helpers/portal.js';
import { startServer, type TestServer } from './helpers/server.js';
import { type ReceivedMail, type SmtpSink, startSmtpSink } from './helpers/smtp.js';
import { itOn } from './helpers/store.js';

/** Long enough that nothing in a test is delivered by the worker's poll: only a wake-up sends it. */
const NEVER = String(3_600_000);

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});
async function sink(): Promise<SmtpSink> {
  const k = await startSmtpSink();
  closers.push(() => k.close());
  return k;
}
async function server(env: Record<string, string>): Promise<TestServer> {
  const s = await startServer(env);
  closers.push(() => s.close());
  return s;
}

describe('two apps in one process', () => {
  const apps: { s: TestServer; sink: SmtpSink; url: string; from: string }[] = [];
  beforeAll(async () => {
    for (const name of ['alpha', 'beta']) {
      const k = await sink();
      const url = `https://${name}.helpdesk.example`;
      const from = `help@${name}.example`;
      // Each with its own store (and so its own portal key), started one after the other.
      apps.push({
        s: await server({ PUBLIC_URL: url, MAIL_FROM: from, SMTP_URL: k.url, OUTBOX_POLL_MS: NEVER }),
        sink: k,
        url,
        from,
      });
    }
  });

  it('each mails with its own URL, sender and Message-ID domain, and signs portal links with its own key', async () => {
    const mails: ReceivedMail[] = [];
    for (const { s, sink: k } of apps) {
      const requester = await s.user('requester', 'rita@customer.example');
      const created = await s.api('POST', '/tickets', {
        body: { queue_id: 1, subject: 'Printer on fire', requester_id: requester.id },
      });
      expect(created.status, created.text).toBe(201);
      mails.push((await k.waitFor(1))[0]);
    }
    for (const [i, { s, url, from }] of apps.entries()) {
      const mail = mails[i];
      expect(mail.envelope.from).toBe(from);
      expect(mail.parsed.from?.value[0].address).toBe(from);
      expect(mail.parsed.messageId).toMatch(new RegExp(`@${from.split('@')[1].replace('.', '\\.')}>$`));
      expect(mail.parsed.text).toContain(`${url}/portal/`);
      const link = portalPathIn(mail);
      // The link opens the ticket on the server that sent it, and on no other.
      const own = await fetch(s.url + link, { headers: { accept: 'text/html' } });
      expect(own.status, link).toBe(200);
      expect(await own.text()).toContain('Printer on fire');
      const other = apps[1 - i].s;
      expect((await fetch(other.url + link, { headers: { accept: 'text/html' } })).status).not.toBe(200);
    }
    expect(PORTAL_LINK.exec(mails[0].parsed.text!)![0]).not.toBe(PORTAL_LINK.exec(mails[1].parsed.text!)![0]);
  });
});

describe("the delivery worker wakes on the store's change signal", () => {
  let dc: Dovecot;
  beforeAll(async () => {
    dc = await startDovecot();
    closers.push(() => dc.stop());
  });

  it('mail taken in from IMAP sends its autoreply at once, not at the next poll', async () => {
    const k = await sink();
    // IMAP polled only when the test asks; the outbox polled once an hour.
    const s = await server({ IMAP_URL: dc.url(), IMAP_POLL_SECONDS: '3600', SMTP_URL: k.url, OUTBOX_POLL_MS: NEVER });
    await s.workers.imap!.pollNow(); // the start-up poll, on an empty mailbox
    const { ImapFlow } = await import('imapflow');
    const c = new ImapFlow({
      host: dc.host,
      port: dc.port,
      secure: false,
      auth: { user: dc.user, pass: dc.password },
      logger: false,
    });
    await c.connect();
    await c.append(
      'INBOX',
      [
        'From: Nina <nina@customer.example>',
        'To: support@example.com',
        'Subject: The scanner jams',
        'Message-ID: <wake-1@customer.example>',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Every page.',
        '',
      ].join('\r\n'),
    );
    await c.logout();
    await s.workers.imap!.pollNow();
    const [autoreply] = await k.waitFor(1);
    expect(autoreply.envelope.to).toEqual(['nina@customer.example']);
    expect(autoreply.parsed.subject).toContain('The scanner jams');
  });

  itOn('postgres')(
    'a ticket made by another app on the same database is mailed at once by the one that sends mail',
    async () => {
      const k = await sink();
      const sender = await server({ SMTP_URL: k.url, OUTBOX_POLL_MS: NEVER });
      // The other app has no SMTP_URL: its worker leaves mail to the sender's. It writes through
      // its own connections; the sender hears of it only through the database (LISTEN/NOTIFY).
      const other = await server({ DATABASE_URL: sender.env.DATABASE_URL!, OUTBOX_POLL_MS: NEVER });
      const requester = await other.user('requester', 'omar@customer.example');
      const created = await other.api('POST', '/tickets', {
        body: { queue_id: 1, subject: 'Badge does not open the door', requester_id: requester.id },
      });
      expect(created.status, created.text).toBe(201);
      const [autoreply] = await k.waitFor(1);
      expect(autoreply.envelope.to).toEqual(['omar@customer.example']);
      expect(autoreply.parsed.subject).toContain('Badge does not open the door');
    },
  );
});
