import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { MAILGATE_TOKEN, postMail } from './helpers/mail.js';
import { mailsFor, outboxOf, settle } from './helpers/notify.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { uniq, uniqueAddress } from './helpers/unique.js';

// Staff notification choices (SPEC C2 settings) as the default scrips honour them, and a queue's
// Cc, AdminCc and keep_mail_cc: set through the API and the admin form, and what mail they bring.

let sink: SmtpSink;
let s: TestServer;
const address = (p: string) => uniqueAddress(p, 'customer.example');

type Person = { id: number; email: string; token: string };
const agent = () => s.user('agent');

async function prefer(p: Person, choices: Record<string, boolean>) {
  const res = await s.api('PATCH', '/settings', { token: p.token, body: choices });
  expect(res.status, res.text).toBe(200);
}

async function newQueue(body: Record<string, unknown> = {}) {
  const name = uniq('Queue');
  const res = await s.api('POST', '/queues', { body: { name, ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as {
    id: number;
    name: string;
    mail_alias: string | null;
    cc: number[];
    admin_cc: number[];
    keep_mail_cc: boolean;
    signature: string;
  };
}

async function newTicket(body: Record<string, unknown>, token?: string) {
  const res = await s.api('POST', '/tickets', { body: { subject: uniq('Ticket'), ...body }, token });
  expect(res.status, res.text).toBe(201);
  await settle(s, res.body.ticket.id);
  return res.body.ticket as { id: number; subject: string; cc: number[]; requesters: number[] };
}

async function write(ticketId: number, body: Record<string, unknown>, token?: string) {
  const res = await s.api('POST', `/tickets/${ticketId}/comment`, { body, token });
  expect(res.status, res.text).toBe(201);
  await settle(s, ticketId);
  return res.body.transaction as { id: number };
}

/** Who the outbox addressed for one transaction (one row per envelope recipient). */
const recipientsOf = async (ticketId: number, transactionId: number) =>
  (await outboxOf(s, ticketId))
    .filter((r) => r.transaction_id === transactionId && r.kind === 'email')
    .map((r) => r.recipient as string)
    .sort();

let general: number;
beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50', MAILGATE_TOKEN });
  general = (await s.api('GET', '/queues')).body.queues.find((q: { name: string }) => q.name === 'General').id;
  // A new install's General has its administrator as AdminCc (decision 019); these tests count the
  // mail of the people they name, on a queue nobody else watches.
  expect((await s.api('PATCH', `/queues/${general}`, { body: { admin_cc: [] } })).status).toBe(200);
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

describe('notification choices are honoured by the scrips', () => {
  it('notify_notes: an owner who turned it off gets no internal note; an AdminCc with it on does', async () => {
    const owner = await agent();
    const watcher = await agent();
    const writer = await agent();
    await prefer(owner, { notify_notes: false });
    const t = await newTicket({
      queue_id: general,
      owner_id: owner.id,
      admin_cc: [watcher.id],
      requesters: [address('req')],
    });
    const note = await write(t.id, { body: 'Customer is on the old plan.', internal: true }, writer.token);
    expect(await recipientsOf(t.id, note.id)).toEqual([watcher.email]);
    const [mail] = mailsFor(sink, t.id, watcher.email).filter((m) =>
      m.parsed.text?.includes('Customer is on the old plan.'),
    );
    expect(mail, 'the AdminCc got the note').toBeDefined();
    expect(mailsFor(sink, t.id, owner.email).some((m) => m.parsed.text?.includes('old plan'))).toBe(false);
    // Turned back on, the owner hears of the next note.
    await prefer(owner, { notify_notes: true });
    const again = await write(t.id, { body: 'Second note.', internal: true }, writer.token);
    expect(await recipientsOf(t.id, again.id)).toEqual([owner.email, watcher.email].sort());
  });

  it('notify_replies: an owner who turned it off gets no copy of replies, from the customer or from staff; an AdminCc does', async () => {
    const owner = await agent();
    const watcher = await agent();
    const colleague = await agent();
    await prefer(owner, { notify_replies: false });
    const customer = await s.user('requester');
    const t = await newTicket({
      queue_id: general,
      owner_id: owner.id,
      admin_cc: [watcher.id],
      requester_id: customer.id,
    });
    const fromCustomer = await write(t.id, { body: 'Still broken.', internal: false }, customer.token);
    expect(await recipientsOf(t.id, fromCustomer.id)).toEqual([watcher.email]);
    const fromStaff = await write(t.id, { body: 'Looking into it.', internal: false }, colleague.token);
    expect(await recipientsOf(t.id, fromStaff.id)).toEqual([customer.email, watcher.email].sort());
    expect(mailsFor(sink, t.id, owner.email).map((m) => m.parsed.subject)).toEqual([
      expect.stringContaining('New ticket:'),
    ]);
    await prefer(owner, { notify_replies: true });
    const later = await write(t.id, { body: 'Any news?', internal: false }, customer.token);
    expect(await recipientsOf(t.id, later.id)).toEqual([owner.email, watcher.email].sort());
  });

  it('notify_new_tickets: of a team whose queue gets a ticket, only the members who want it are told', async () => {
    const quiet = await agent();
    const keen = await agent();
    await prefer(quiet, { notify_new_tickets: false });
    const team = await s.api('POST', '/teams', { body: { name: uniq('Team') } });
    for (const u of [quiet, keen])
      expect((await s.api('POST', `/teams/${team.body.id}/members`, { body: { user_id: u.id } })).status).toBe(201);
    const q = await newQueue({ team_id: team.body.id });
    const customer = address('new');
    const t = await newTicket({ queue_id: q.id, requesters: [customer] });
    const rows = (await outboxOf(s, t.id)).filter((r) => r.audience === 'staff');
    expect(rows.map((r) => r.recipient)).toEqual([keen.email]);
    const [mail] = mailsFor(sink, t.id, keen.email);
    expect(mail.parsed.subject).toContain(`New ticket: ${t.subject}`);
    expect(mailsFor(sink, t.id, quiet.email)).toEqual([]);
  });
});

describe('queue Cc, AdminCc, keep_mail_cc and signature in the API', () => {
  it('GET answers them; POST and PATCH set them by id or address; AdminCc must be staff', async () => {
    const staff = await agent();
    const cc = address('cc');
    const q = await newQueue({
      cc: [cc],
      admin_cc: [staff.id],
      keep_mail_cc: false,
      signature: 'The {{ queue.name }} desk',
    });
    const ccUser = (await s.api('GET', '/users?role=requester')).body.users.find(
      (u: { email: string }) => u.email === cc,
    );
    expect(ccUser, 'an unknown Cc address became a requester account').toBeDefined();
    expect(q).toMatchObject({
      cc: [ccUser.id],
      admin_cc: [staff.id],
      keep_mail_cc: false,
      signature: 'The {{ queue.name }} desk',
    });
    expect((await s.api('GET', `/queues/${q.id}`)).body).toEqual(q);
    expect(
      (await s.api('GET', '/queues', { token: staff.token })).body.queues.find((x: { id: number }) => x.id === q.id),
    ).toEqual(q);

    // PATCH replaces a list that is sent and leaves the others; by address works for staff too.
    const patched = await s.api('PATCH', `/queues/${q.id}`, {
      body: { admin_cc: [staff.email.toUpperCase()], keep_mail_cc: true },
    });
    expect(patched.body).toMatchObject({ cc: [ccUser.id], admin_cc: [staff.id], keep_mail_cc: true });
    const cleared = await s.api('PATCH', `/queues/${q.id}`, { body: { cc: [] } });
    expect(cleared.body).toMatchObject({ cc: [], admin_cc: [staff.id] });

    // A requester is not staff: no internal notes for them, 422 and nothing changed.
    expectError(
      await s.api('PATCH', `/queues/${q.id}`, { body: { cc: [ccUser.id], admin_cc: [ccUser.id] } }),
      422,
      'validation_failed',
      'admin_cc.0',
    );
    expectError(
      await s.api('PATCH', `/queues/${q.id}`, { body: { admin_cc: [address('stranger')] } }),
      422,
      'validation_failed',
      'admin_cc.0',
    );
    expectError(await s.api('PATCH', `/queues/${q.id}`, { body: { cc: [999999] } }), 422, 'validation_failed', 'cc.0');
    expectError(
      await s.api('PATCH', `/queues/${q.id}`, { body: { cc: ['not an address'] } }),
      422,
      'validation_failed',
      'cc.0',
    );
    expectError(
      await s.api('PATCH', `/queues/${q.id}`, { body: { keep_mail_cc: 'sometimes' } }),
      422,
      'validation_failed',
      'keep_mail_cc',
    );
    expect((await s.api('GET', `/queues/${q.id}`)).body).toMatchObject({ cc: [], admin_cc: [staff.id] });

    // A requester reads queues (to open tickets) without who watches them.
    const requester = await s.user('requester');
    const seen = (await s.api('GET', `/queues/${q.id}`, { token: requester.token })).body;
    expect(seen).not.toHaveProperty('cc');
    expect(seen).not.toHaveProperty('admin_cc');
  });

  it('the admin form sends them comma-separated and shows them as addresses', async () => {
    const staff = await agent();
    const cc = address('formcc');
    const q = await newQueue();
    const res = await s.api('POST', `/queues/${q.id}`, {
      headers: { accept: 'text/html' },
      form: {
        _method: 'PATCH',
        name: q.name,
        cc: `${cc}, `,
        admin_cc: `${staff.email}`,
        keep_mail_cc: ['false'],
        signature: 'Billing team',
      },
    });
    expect(res.status, res.text).toBe(303);
    const got = (await s.api('GET', `/queues/${q.id}`)).body;
    expect(got).toMatchObject({ admin_cc: [staff.id], keep_mail_cc: false, signature: 'Billing team' });
    expect(got.cc).toHaveLength(1);
    const page = await s.api('GET', `/queues/${q.id}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain(`value="${cc}"`);
    expect(page.text).toContain(`value="${staff.email}"`);
    for (const field of ['keep_mail_cc', 'signature', 'cc', 'admin_cc']) expect(page.text).toContain(`name="${field}"`);
  });
});

describe('queue watchers get the right mail', () => {
  it('queue AdminCc: the "New ticket" staff mail and internal notes; queue Cc: public replies, Cc\'d with the requesters', async () => {
    const adminCc = await agent();
    const writer = await agent();
    const cc = address('qcc');
    const requester = address('qreq');
    const q = await newQueue({ cc: [cc], admin_cc: [adminCc.id] });
    const t = await newTicket({ queue_id: q.id, requesters: [requester] });
    // New ticket: the AdminCc is told; the queue Cc is not (the autoreply is for the requesters).
    const created = await outboxOf(s, t.id);
    expect(created.filter((r) => r.audience === 'staff').map((r) => r.recipient)).toEqual([adminCc.email]);
    expect(created.map((r) => r.recipient)).not.toContain(cc);
    expect(mailsFor(sink, t.id, adminCc.email)[0].parsed.subject).toContain('New ticket:');

    const reply = await write(t.id, { body: 'We are on it.', internal: false }, writer.token);
    expect(await recipientsOf(t.id, reply.id)).toEqual([adminCc.email, cc, requester].sort());
    const [toCc] = mailsFor(sink, t.id, cc);
    expect(toCc.parsed.text).toContain('We are on it.');
    expect(toCc.envelope.to).toEqual([cc]);

    const note = await write(t.id, { body: 'Internal only.', internal: true }, writer.token);
    expect(await recipientsOf(t.id, note.id)).toEqual([adminCc.email]);
    expect(mailsFor(sink, t.id, cc).some((m) => m.parsed.text?.includes('Internal only.'))).toBe(false);
  });
});

describe('keep_mail_cc', () => {
  const mail = (alias: string, from: string, cc: string, extra: string[] = []) =>
    [
      `From: ${from}`,
      `To: ${alias}`,
      `Cc: ${cc}`,
      ...extra,
      `Message-ID: <${uniq('m').replace(/\W+/g, '.')}@customer.example>`,
      '',
      'Hello',
      '',
    ].join('\r\n');

  it('false: people in To/Cc of new mail and of replies do not become watchers; true (the default): they do', async () => {
    const off = await newQueue({
      mail_alias: `${uniq('off').replace(/\W+/g, '-')}@helpdesk.example`.toLowerCase(),
      keep_mail_cc: false,
    });
    const on = await newQueue({ mail_alias: `${uniq('on').replace(/\W+/g, '-')}@helpdesk.example`.toLowerCase() });
    expect(on.keep_mail_cc).toBe(true);
    const sender = address('sender');
    const colleague = address('colleague');

    const kept = await postMail(s, mail(on.mail_alias!, sender, colleague, ['Subject: Kept']));
    expect(kept.status, kept.text).toBe(201);
    const keptTicket = (await s.api('GET', `/tickets/${kept.body.ticket_id}`)).body;
    expect(keptTicket.cc).toHaveLength(1);

    const dropped = await postMail(s, mail(off.mail_alias!, sender, colleague, ['Subject: Dropped']));
    expect(dropped.status, dropped.text).toBe(201);
    const ticket = (await s.api('GET', `/tickets/${dropped.body.ticket_id}`)).body;
    expect(ticket.queue_id).toBe(off.id);
    expect(ticket.cc).toEqual([]);
    // A reply that Ccs someone new adds nobody either.
    const reply = await postMail(
      s,
      mail(off.mail_alias!, sender, address('another'), [`Subject: Re: [hxdesk #${ticket.id}] Dropped`]),
    );
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.ticket_id).toBe(ticket.id);
    expect((await s.api('GET', `/tickets/${ticket.id}`)).body.cc).toEqual([]);
  });
});
