import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDovecot, type Dovecot } from './helpers/dovecot.js';
import { MAILGATE_TOKEN, postMail, rawMail } from './helpers/mail.js';
import { runMailgate } from './helpers/mailgate.js';
import { mailTo, outboxOf, settle } from './helpers/notify.js';
import { portalPathIn, signedPath } from './helpers/portal.js';
import { ticketOf, transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { mintedToken } from './helpers/session.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { uniq, uniqueAddress } from './helpers/unique.js';

// SPEC D0, the outsider with one e-mail address: mail from someone who is not on a ticket, threaded
// to it by its subject tag (ticket numbers are sequential) or a Message-ID, is kept as an internal
// comment that staff hear of. The outsider is not made a watcher, the people they name are not
// added, no customer is mailed, the portal never shows it — on every door mail comes through.
// Asserted as the sink sees it: who received mail, and that the outsider holds no working link.

let sink: SmtpSink;
let s: TestServer;
let dovecot: Dovecot;
let olga: { id: number; email: string; token: string }; // the agent who owns the customer's ticket
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-outside-'));
const tokenFile = path.join(dir, 'mailgate-token');
fs.writeFileSync(tokenFile, `${MAILGATE_TOKEN}\n`, { mode: 0o600 });

beforeAll(async () => {
  [sink, dovecot] = await Promise.all([startSmtpSink(), startDovecot()]);
  s = await startServer({
    SMTP_URL: sink.url,
    OUTBOX_POLL_MS: '50',
    MAILGATE_TOKEN,
    MAIL_ADDRESSES: 'support@helpdesk.example',
    IMAP_URL: dovecot.url(),
    IMAP_POLL_SECONDS: '3600',
  });
  olga = await s.user('agent', 'olga@helpdesk.example');
});
afterAll(async () => {
  await s?.close();
  await Promise.all([sink?.close(), dovecot?.stop()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const PASSPORT = Buffer.from('%PDF-1.4 passport scan of Carla Rossi, no. X1234567\n');

async function mailgate(raw: Buffer) {
  const res = await postMail(s, raw);
  expect(res.status, res.text).toBeLessThan(300);
  return res.body as { ticket_id: number; transaction_id: number; intake_id: number; verdict: string; rule: string };
}
const userId = async (email: string) =>
  ((await s.api('GET', `/users?q=${encodeURIComponent(email)}`)).body.users as any[]).find((u) => u.email === email)
    ?.id as number | undefined;
/** Envelope recipients of the mail about `ticketId` that arrived after `from` messages. */
const recipientsSince = (ticketId: number, from: number) =>
  [
    ...new Set(
      sink.messages
        .slice(from)
        .filter((m) => String(m.parsed.headers.get('x-hxdesk-ticket')) === String(ticketId))
        .flatMap((m) => m.envelope.to),
    ),
  ].sort();

async function staffReply(ticketId: number, body: string) {
  const res = await s.api('POST', `/tickets/${ticketId}/comment`, {
    token: olga.token,
    body: { body, internal: false },
  });
  expect(res.status, res.text).toBe(201);
  await settle(s, ticketId);
  return res.body;
}

/** Carla's ticket with her passport scan, owned by Olga, who has answered once. */
async function carlasAnsweredTicket(): Promise<number> {
  const created = await mailgate(
    rawMail(
      { from: 'Carla Rossi <carla@customer.example>', subject: uniq('Account ') },
      'My account number is 4711-0815. The scan of my passport is attached.',
      { name: 'passport.pdf', content: PASSPORT },
    ),
  );
  const id = created.ticket_id;
  expect((await s.api('PATCH', `/tickets/${id}`, { body: { owner_id: olga.id } })).status).toBe(200);
  await staffReply(id, 'Thank you, we are looking into it.');
  return id;
}

/** What every door must leave behind for an outsider's message on `ticketId` (whose transaction is `txnId`). */
async function expectKeptInternal(ticketId: number, txnId: number, outsider: string) {
  const t = (await transactionsOf(s, ticketId)).find((x) => x.id === txnId);
  expect(t).toMatchObject({ type: 'Comment', outside_sender: true, creator_id: await userId(outsider) });
  const ticket = await ticketOf(s, ticketId);
  expect(ticket.requesters).toEqual([await userId('carla@customer.example')]);
  expect(ticket.cc).toEqual([]);
}

describe('mail from someone who is not on the ticket', () => {
  it('is an internal comment: the next staff reply reaches the customer only, and the outsider holds no working portal link', async () => {
    const id = await carlasAnsweredTicket();
    const before = sink.messages.length;
    const res = await mailgate(
      rawMail(
        {
          from: 'Mallory <mallory@evil.example>',
          cc: 'Trudy <trudy@evil.example>',
          subject: `Re: [hxdesk #${id}] my account`,
        },
        'Please send me everything you have on this account.',
      ),
    );
    expect(res).toMatchObject({ verdict: 'appended', ticket_id: id });
    expect(res.rule).toContain('sender mallory@evil.example is not on ticket');
    expect(res.rule).toContain('kept as an internal comment');
    await expectKeptInternal(id, res.transaction_id, 'mallory@evil.example');
    expect(await userId('trudy@evil.example')).toBeUndefined(); // the people an outsider names are not even recorded
    // The intake log says which rule kept it internal.
    expect((await s.api('GET', `/mail/intake/${res.intake_id}`)).body.rule).toContain('(outside sender)');

    // Staff hear of it as of a customer's reply (the owner), and nobody else does.
    await settle(s, id);
    expect(recipientsSince(id, before)).toEqual(['olga@helpdesk.example']);
    const notice = sink.messages.slice(before).find((m) => m.envelope.to.includes('olga@helpdesk.example'))!;
    expect(notice.parsed.text).toContain('mallory@evil.example>, who is not on ticket');
    expect(notice.parsed.text).toContain('Please send me everything');
    expect(notice.parsed.text).toContain('Add as Cc');

    // The next public reply goes to the real customer only: not to the outsider, not to whom they named.
    const beforeReply = sink.messages.length;
    await staffReply(id, 'Your account 4711-0815 is unlocked again.');
    expect(recipientsSince(id, beforeReply)).toEqual(['admin@example.com', 'carla@customer.example']); // the queue's AdminCc gets a staff copy
    expect(sink.messages.filter((m) => m.envelope.to.some((a) => a.endsWith('@evil.example')))).toEqual([]);
    expect((await outboxOf(s, id)).filter((r) => r.recipient.endsWith('@evil.example'))).toEqual([]);

    // A link for the outsider, signed with the server's own key as if mail had carried one, opens nothing.
    const mallory = (await userId('mallory@evil.example'))!;
    const link = await signedPath(s, { ticketId: id, userId: mallory });
    const page = await s.api('GET', link, { token: null });
    expect(page.status).toBe(403);
    const scan = (await transactionsOf(s, id))[0].attachments[0];
    expect((await s.api('GET', `${link}/attachments/${scan.id}`, { token: null })).status).toBe(403);
    expect((await s.api('POST', `${link}/reply`, { token: null, body: { body: 'let me in' } })).status).toBe(403);

    // The customer's portal page never shows it.
    const carlaMail = await mailTo(sink, 'carla@customer.example', (m) =>
      (m.parsed.text ?? '').includes('unlocked again'),
    );
    const portal = await s.api('GET', portalPathIn(carlaMail), { token: null });
    expect(portal.status).toBe(200);
    expect(JSON.stringify(portal.body)).not.toContain('Please send me everything');
    expect(portal.body.transactions.map((t: any) => t.type)).toEqual(['Create', 'Correspond', 'Correspond']);
  });

  it('changes nothing else: no status change, no reopening, and the outsider cannot see the ticket signed in', async () => {
    const id = await carlasAnsweredTicket();
    expect((await s.api('PATCH', `/tickets/${id}`, { body: { status: 'resolved' } })).status).toBe(200);
    const res = await mailgate(
      rawMail({ from: 'eve@evil.example', subject: `[hxdesk #${id}] reopen please` }, 'Reopen this.'),
    );
    expect((await ticketOf(s, id)).status).toBe('resolved');
    expect((await transactionsOf(s, id)).at(-1)).toMatchObject({
      id: res.transaction_id,
      type: 'Comment',
      outside_sender: true,
    });
    const eve = (await userId('eve@evil.example'))!;
    expect(
      (await s.api('GET', `/tickets/${id}`, { token: await mintedToken(s, { id: eve, email: 'eve@evil.example' }) }))
        .status,
    ).toBe(404);
  });

  it("from staff or from the ticket's own people is what it was: a public reply", async () => {
    const id = await carlasAnsweredTicket();
    const fromCarla = await mailgate(
      rawMail({ from: 'carla@customer.example', subject: `Re: [hxdesk #${id}]` }, 'Thanks!'),
    );
    expect((await transactionsOf(s, id)).at(-1)).toMatchObject({
      id: fromCarla.transaction_id,
      type: 'Correspond',
      outside_sender: false,
    });
    const ben = await s.user('agent', uniqueAddress('ben', 'helpdesk.example'));
    const fromBen = await mailgate(
      rawMail({ from: ben.email, subject: `Re: [hxdesk #${id}]` }, 'Ben here, from the second line.'),
    );
    expect((await transactionsOf(s, id)).at(-1)).toMatchObject({
      id: fromBen.transaction_id,
      type: 'Correspond',
      outside_sender: false,
    });
  });

  it('is threaded by Message-ID too, and kept internal on every door: /mailgate raw, JSON, Mailgun and SendGrid forms, the MTA command, IMAP', async () => {
    const id = await carlasAnsweredTicket();
    const ourMessageId = String(
      (await outboxOf(s, id)).find((r) => r.recipient === 'carla@customer.example')!.message_id,
    );
    const doors: [string, (raw: Buffer) => Promise<number>][] = [
      ['raw', async (raw) => (await mailgate(raw)).transaction_id],
      [
        'json',
        async (raw) => {
          const res = await s.api('POST', '/mailgate', {
            token: MAILGATE_TOKEN,
            body: { message: raw.toString('utf8') },
          });
          expect(res.status, res.text).toBe(200);
          return res.body.transaction_id;
        },
      ],
      [
        'mailgun',
        async (raw) =>
          (
            await form({
              recipient: 'support@helpdesk.example',
              sender: 'x@evil.example',
              'body-mime': raw.toString('utf8'),
            })
          ).transaction_id,
      ],
      [
        'sendgrid',
        async (raw) =>
          (await form({ to: 'support@helpdesk.example', from: 'x@evil.example', email: raw.toString('utf8') }))
            .transaction_id,
      ],
      [
        'command',
        async (raw) => {
          const run = await runMailgate(['--url', s.url, '--token-file', tokenFile], raw);
          expect(run.code, run.stderr).toBe(0);
          return (await transactionsOf(s, id)).at(-1).id;
        },
      ],
      [
        'imap',
        async (raw) => {
          const c = new ImapFlow({
            host: dovecot.host,
            port: dovecot.port,
            secure: false,
            auth: { user: dovecot.user, pass: dovecot.password },
            logger: false,
          });
          await c.connect();
          await c.append('INBOX', raw);
          await c.logout();
          await s.workers.imap!.pollNow();
          return (await transactionsOf(s, id)).at(-1).id;
        },
      ],
    ];
    const before = sink.messages.length;
    for (const [door, send] of doors) {
      const outsider = `${door}@evil.example`;
      // Half by the subject tag, half as a reply to our own mail (In-Reply-To), as a forwarded thread would be.
      const raw =
        door === 'json' || door === 'command' || door === 'imap'
          ? rawMail(
              {
                from: outsider,
                cc: `friend-of-${door}@evil.example`,
                subject: 'Re: your mail',
                inReplyTo: ourMessageId,
              },
              `Sent through ${door}.`,
            )
          : rawMail(
              { from: outsider, cc: `friend-of-${door}@evil.example`, subject: `[hxdesk #${id}] via ${door}` },
              `Sent through ${door}.`,
            );
      const txn = await send(raw);
      const t = (await transactionsOf(s, id)).find((x) => x.id === txn);
      expect(t, door).toMatchObject({
        type: 'Comment',
        outside_sender: true,
        body: expect.stringContaining(`Sent through ${door}.`),
      });
      await expectKeptInternal(id, txn, outsider);
    }
    await settle(s, id);
    expect(recipientsSince(id, before)).toEqual(['olga@helpdesk.example']);
    const rules = ((await s.api('GET', '/mail/intake?limit=20')).body.intake as any[]).filter(
      (e) => e.ticket_id === id && e.sender?.endsWith('@evil.example'),
    );
    expect(rules.map((e) => e.source).sort()).toEqual([
      'imap',
      'mailgate',
      'mailgate',
      'mailgate',
      'mailgate',
      'mailgate',
    ]);
    for (const e of rules) expect(e.rule).toContain('(outside sender)');
  });

  it('staff see it with its sender and an "Add as Cc" action; once added, the person gets the public replies', async () => {
    const id = await carlasAnsweredTicket();
    const res = await mailgate(
      rawMail(
        { from: 'Dora Colleague <dora@customer.example>', subject: `Re: [hxdesk #${id}]` },
        'I work with Carla; please keep me posted.',
      ),
    );
    const dora = (await userId('dora@customer.example'))!;
    const page = await s.api('GET', `/tickets/${id}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const entry = page.text.slice(page.text.indexOf(`id="txn-${res.transaction_id}"`));
    expect(entry.slice(0, 3000)).toMatch(/Mail from an outside sender, Dora Colleague &lt;dora@customer\.example&gt;/);
    expect(entry.slice(0, 3000)).toContain(`action="/tickets/${id}/watchers"`);
    expect(entry.slice(0, 3000)).toMatch(new RegExp(`name="user_id" value="${dora}"`));
    expect(entry.slice(0, 3000)).toContain('Add as Cc');

    // The action is the existing watchers route; after it, the entry offers it no more.
    const added = await s.api('POST', `/tickets/${id}/watchers`, {
      token: olga.token,
      body: { role: 'cc', user_id: dora },
    });
    expect(added.status, added.text).toBe(201);
    const again = await s.api('GET', `/tickets/${id}`, { headers: { accept: 'text/html' } });
    expect(again.text.slice(again.text.indexOf(`id="txn-${res.transaction_id}"`)).slice(0, 3000)).not.toContain(
      'Add as Cc',
    );
    await settle(s, id);
    const before = sink.messages.length;
    await staffReply(id, 'Dora, you are on the ticket now.');
    expect(recipientsSince(id, before)).toEqual([
      'admin@example.com',
      'carla@customer.example',
      'dora@customer.example',
    ]);
  });
});

async function form(fields: Record<string, string>) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  const res = await fetch(`${s.url}/mailgate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MAILGATE_TOKEN}` },
    body: fd,
  });
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body as { transaction_id: number };
}
