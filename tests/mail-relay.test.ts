import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { MAILGATE_TOKEN, postMail, rawMail } from './helpers/mail.js';
import { mailTo, outboxOf, settle } from './helpers/notify.js';
import { portalPathIn, replyForm } from './helpers/portal.js';
import { startServer, type TestServer } from './helpers/server.js';
import { mintedToken } from './helpers/session.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { uniq } from './helpers/unique.js';

// SPEC D0: hxdesk is no open mail relay. People named in To/Cc of mail become Cc only within
// bounds (10 new a message, 20 a ticket from mail; a queue may lower them), the rest are listed on
// the ticket as "not added" for staff; and what a customer writes, by mail or in the portal,
// reaches the ticket's other customers only after a staff member has replied publicly.

let sink: SmtpSink;
let s: TestServer;
let agent: { id: number; email: string; token: string };

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({
    SMTP_URL: sink.url,
    OUTBOX_POLL_MS: '50',
    MAILGATE_TOKEN,
    MAIL_ADDRESSES: 'support@helpdesk.example',
  });
  agent = await s.user('agent', 'agnes@helpdesk.example');
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

const people = (prefix: string, n: number, domain = 'strangers.example') =>
  Array.from({ length: n }, (_, i) => `${prefix}${i + 1}@${domain}`);

/** A message to support@helpdesk.example, and to `to` besides. */
async function mail(h: { from: string; to?: string[]; cc?: string[]; subject: string }, body = 'Hello.') {
  const res = await postMail(s, rawMail({ ...h, to: ['support@helpdesk.example', ...(h.to ?? [])] }, body));
  expect(res.status, res.text).toBeLessThan(300);
  return res.body as { ticket_id: number; transaction_id: number; intake_id: number; rule: string };
}
const ticketWithNotAdded = async (id: number) => {
  const res = await s.api('GET', `/tickets/${id}`);
  expect(res.status, res.text).toBe(200);
  const notAdded = await s.api('GET', `/tickets/${id}/cc-not-added`);
  expect(notAdded.status, notAdded.text).toBe(200);
  return { ...res.body, cc_not_added: notAdded.body.cc_not_added };
};
const emailsOf = async (ids: number[]) =>
  Promise.all(ids.map(async (id) => (await s.api('GET', `/users/${id}`)).body.email as string));
const userExists = async (email: string) =>
  ((await s.api('GET', `/users?q=${encodeURIComponent(email)}`)).body.users as any[]).some((u) => u.email === email);
const customerMail = async (id: number) =>
  (await outboxOf(s, id)).filter((r) => r.kind === 'email' && r.audience === 'customer');

describe('Cc from mail, bounded', () => {
  it('a new ticket: 10 of 15 new people become Cc; the other 5 are listed as not added, with the reason, and get no account', async () => {
    const named = people('p', 15);
    const res = await mail({
      from: 'Carla <carla@customer.example>',
      to: named.slice(0, 4),
      cc: named.slice(4),
      subject: 'Fifteen people',
    });
    const t = await ticketWithNotAdded(res.ticket_id);
    expect(await emailsOf(t.cc)).toEqual(named.slice(0, 10));
    expect(t.cc_not_added.map((n: any) => [n.email, n.reason])).toEqual(
      named.slice(10).map((e) => [e, 'more than 10 new people in one message']),
    );
    expect(t.cc_not_added[0]).toMatchObject({ transaction_id: expect.any(Number), name: '' });
    for (const e of named.slice(10)) expect(await userExists(e)).toBe(false);
    expect(res.rule).toContain('Cc from mail: 10 added, 5 not added (more than 10 new people in one message)');

    // Customers do not see the list.
    const carla = ((await s.api('GET', '/users?q=carla%40customer.example')).body.users as any[])[0];
    const token = await mintedToken(s, carla);
    expect((await s.api('GET', `/tickets/${res.ticket_id}`, { token })).status).toBe(200);
    expectError(await s.api('GET', `/tickets/${res.ticket_id}/cc-not-added`, { token }), 403, 'forbidden');

    // Staff see it on the page and add one of them with one action; the list shrinks.
    const page = await s.api('GET', `/tickets/${res.ticket_id}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('Not added from mail');
    expect(page.text).toContain('more than 10 new people in one message');
    expect(page.text).toContain(`value="${named[10]}"`);
    const add = await s.api('POST', `/tickets/${res.ticket_id}/watchers`, {
      token: agent.token,
      form: { role: 'cc', email: named[10] },
    });
    expect(add.status, add.text).toBe(201);
    const after = await ticketWithNotAdded(res.ticket_id);
    expect(after.cc).toHaveLength(11);
    expect(after.cc_not_added.map((n: any) => n.email)).toEqual(named.slice(11));
  });

  it('a message naming 1,000 people: 10 become Cc, 50 are listed, and the rule counts the rest', async () => {
    const named = people('k', 1000, 'crowd.example');
    const res = await mail({ from: 'fay@customer.example', cc: named, subject: 'A crowd' });
    const t = await ticketWithNotAdded(res.ticket_id);
    expect(await emailsOf(t.cc)).toEqual(named.slice(0, 10));
    expect(t.cc_not_added.map((n: any) => n.email)).toEqual(named.slice(10, 60));
    // To/Cc name our own address first, then the 1,000: 200 looked at, 199 of them new.
    expect(res.rule).toContain(
      'Cc from mail: 10 added, 189 not added (more than 10 new people in one message); 801 more addresses in To/Cc not looked at',
    );
  });

  it('a ticket gets at most 20 people from mail, whoever mails it; a removed one still counts', async () => {
    const first = people('a', 10);
    const res = await mail({ from: 'dan@customer.example', cc: first, subject: 'Twenty' });
    const second = people('b', 10);
    await mail({ from: 'dan@customer.example', cc: second, subject: `Re: [hxdesk #${res.ticket_id}] Twenty` });
    expect((await ticketWithNotAdded(res.ticket_id)).cc).toHaveLength(20);
    // One of them writes too, naming two more: the ticket is full.
    const third = await mail({ from: first[0], cc: people('c', 2), subject: `Re: [hxdesk #${res.ticket_id}] Twenty` });
    expect(third.rule).toContain(
      'Cc from mail: 0 added, 2 not added (20 people were already added to this ticket from mail)',
    );
    const t = await ticketWithNotAdded(res.ticket_id);
    expect(t.cc).toHaveLength(20);
    expect(t.cc_not_added.map((n: any) => n.reason)).toEqual([
      '20 people were already added to this ticket from mail',
      '20 people were already added to this ticket from mail',
    ]);
    // Staff take someone off: mail still cannot add another in their place.
    expect((await s.api('DELETE', `/tickets/${res.ticket_id}/watchers/cc/${t.cc[0]}`)).status).toBe(204);
    await mail({ from: 'dan@customer.example', cc: people('d', 1), subject: `Re: [hxdesk #${res.ticket_id}] Twenty` });
    expect((await ticketWithNotAdded(res.ticket_id)).cc).toHaveLength(19);
  });

  it('a queue may lower the bounds (never raise them), and keep no Cc from mail at all', async () => {
    const q = await s.api('POST', '/queues', {
      body: { name: 'Low', mail_alias: 'low@helpdesk.example', mail_cc_per_message: 2, mail_cc_per_ticket: 3 },
    });
    expect(q.status, q.text).toBe(201);
    expect(q.body).toMatchObject({ mail_cc_per_message: 2, mail_cc_per_ticket: 3, keep_mail_cc: true });
    expectError(
      await s.api('PATCH', `/queues/${q.body.id}`, { body: { mail_cc_per_message: 11 } }),
      422,
      'validation_failed',
      ['mail_cc_per_message'],
    );
    expectError(
      await s.api('PATCH', `/queues/${q.body.id}`, { form: { mail_cc_per_ticket: '0' } }),
      422,
      'validation_failed',
      ['mail_cc_per_ticket'],
    );
    expect((await s.api('GET', `/queues/${q.body.id}`)).body.mail_cc_per_ticket).toBe(3);

    const res = await mail({
      from: 'erin@customer.example',
      to: ['low@helpdesk.example'],
      cc: people('l', 5),
      subject: 'Low bounds',
    });
    expect((await ticketWithNotAdded(res.ticket_id)).cc).toHaveLength(2);
    await mail({
      from: 'erin@customer.example',
      to: ['low@helpdesk.example'],
      cc: people('m', 3),
      subject: `Re: [hxdesk #${res.ticket_id}]`,
    });
    const t = await ticketWithNotAdded(res.ticket_id);
    expect(t.cc).toHaveLength(3);
    expect(t.cc_not_added.map((n: any) => n.reason)).toEqual([
      'more than 2 new people in one message',
      'more than 2 new people in one message',
      'more than 2 new people in one message',
      '3 people were already added to this ticket from mail',
      'more than 2 new people in one message',
    ]);

    expect((await s.api('PATCH', `/queues/${q.body.id}`, { body: { keep_mail_cc: false } })).status).toBe(200);
    const off = await mail({
      from: 'erin@customer.example',
      to: ['low@helpdesk.example'],
      cc: people('o', 3),
      subject: 'No Cc here',
    });
    const none = await ticketWithNotAdded(off.ticket_id);
    expect(none.cc).toEqual([]);
    expect(none.cc_not_added).toEqual([]);
    expect(off.rule).toContain('Cc from mail is off in queue Low: 3 not added');
  });
});

describe('no relay before staff speak', () => {
  /** Carla's new ticket with her colleague Dora in Cc (Dora is made Cc: within bounds). */
  async function ticketWithDora() {
    const res = await mail(
      { from: 'Carla <carla@customer.example>', cc: ['dora@customer.example'], subject: uniq('Relay ') },
      'First message.',
    );
    const t = await ticketWithNotAdded(res.ticket_id);
    expect(await emailsOf(t.cc)).toEqual(['dora@customer.example']);
    return res.ticket_id;
  }

  it("a customer's mail reaches only staff until a staff member replies publicly; then the other customers get it", async () => {
    const id = await ticketWithDora();
    const reply = await mail(
      { from: 'carla@customer.example', subject: `Re: [hxdesk #${id}]` },
      'Here is my account number 4711.',
    );
    await settle(s, id);
    expect((await customerMail(id)).map((r) => r.recipient)).toEqual(['carla@customer.example']); // her autoreply only
    const txn = ((await s.api('GET', `/tickets/${id}/transactions`)).body.transactions as any[]).find(
      (t) => t.id === reply.transaction_id,
    );
    const relay = txn.scrip_results.find((r: any) => r.key === 'notify_requester_on_correspond');
    expect(relay).toMatchObject({
      ok: true,
      notifications: 0,
      withheld: {
        recipients: ['dora@customer.example'],
        reason: expect.stringContaining('no staff member has replied publicly'),
      },
    });
    // Staff hear of it (the queue's AdminCc), and the page tells them who did not get it.
    expect(
      (await outboxOf(s, id))
        .filter((r) => r.transaction_id === reply.transaction_id)
        .map((r) => [r.recipient, r.audience]),
    ).toEqual([['admin@example.com', 'staff']]);
    const page = await s.api('GET', `/tickets/${id}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('Not mailed to dora@customer.example: no staff member has replied publicly');
    expect(page.text).toContain('reaches staff only, not the other customers');

    const staff = await s.api('POST', `/tickets/${id}/comment`, {
      token: agent.token,
      body: { body: 'We are on it.', internal: false },
    });
    expect(staff.status, staff.text).toBe(201);
    expect((await s.api('GET', `/tickets/${id}`, { headers: { accept: 'text/html' } })).text).not.toContain(
      'reaches staff only',
    );
    await mail({ from: 'carla@customer.example', subject: `Re: [hxdesk #${id}]` }, 'Thanks, one more thing.');
    await settle(s, id);
    const got = (await customerMail(id)).map((r) => [r.recipient, r.transaction_id]);
    expect(got.filter(([to]) => to === 'dora@customer.example').map(([, t]) => t)).toEqual([
      staff.body.transaction.id,
      expect.any(Number),
    ]);
  });

  it("a customer's portal reply too", async () => {
    const id = await ticketWithDora();
    await settle(s, id);
    const link = portalPathIn(
      await mailTo(
        sink,
        'carla@customer.example',
        (m) => String(m.parsed.headers.get('x-hxdesk-ticket')) === String(id),
      ),
    );
    const res = await fetch(`${s.url}${link}/reply`, {
      method: 'POST',
      body: replyForm('From the portal: my IBAN is DE00 1234.'),
      headers: { origin: s.url },
    });
    expect(res.status).toBe(201);
    await settle(s, id);
    expect((await customerMail(id)).filter((r) => r.recipient === 'dora@customer.example')).toEqual([]);
    expect(
      (
        await s.api('POST', `/tickets/${id}/comment`, {
          token: agent.token,
          body: { body: 'Answered.', internal: false },
        })
      ).status,
    ).toBe(201);
    const again = await fetch(`${s.url}${link}/reply`, {
      method: 'POST',
      body: replyForm('And a follow-up.'),
      headers: { origin: s.url },
    });
    expect(again.status).toBe(201);
    await settle(s, id);
    expect((await customerMail(id)).filter((r) => r.recipient === 'dora@customer.example')).toHaveLength(2); // the staff reply and the follow-up
  });

  it('the relay attack: one sender naming 300 strangers in six messages queues no mail to any of them', async () => {
    const first = await mail({ from: 'spammer@bulk.example', cc: people('s0-', 50), subject: 'Cheap watches' });
    for (let i = 1; i <= 5; i++)
      await mail({
        from: 'spammer@bulk.example',
        cc: people(`s${i}-`, 50),
        subject: `Re: [hxdesk #${first.ticket_id}] Cheap watches`,
      });
    await settle(s, first.ticket_id);
    const t = await ticketWithNotAdded(first.ticket_id);
    expect(t.cc).toHaveLength(20);
    expect((await customerMail(first.ticket_id)).map((r) => r.recipient)).toEqual(['spammer@bulk.example']); // the autoreply to the sender
    expect(sink.messages.filter((m) => m.envelope.to.some((a) => a.endsWith('@strangers.example')))).toEqual([]);
  });
});
