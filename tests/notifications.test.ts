import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawConfigRun } from './helpers/db.js';
import { expectError } from './helpers/expect.js';
import { transactionsOf } from './helpers/reads.js';
import { startServer, type TestServer } from './helpers/server.js';
import { mailsTo, outboxOf as outboxOfServer, settle as settleOutbox } from './helpers/notify.js';
import { refs, startSmtpSink, type ReceivedMail, type SmtpSink } from './helpers/smtp.js';
import { until } from './helpers/wait.js';
import { uniq } from './helpers/unique.js';

// Scrips, templates and notifications end to end (SPEC B6): changes through the HTTP API, mail
// through the durable outbox and the delivery worker into a real SMTP server.

let sink: SmtpSink;
let s: TestServer;
let generalId: number;
let scripIds: Record<string, number>;

interface Person {
  id: number;
  email: string;
  token: string;
  name: string;
}

async function person(server: TestServer, role: 'admin' | 'agent' | 'requester'): Promise<Person> {
  const u = await server.user(role);
  const got = await server.api('GET', `/users/${u.id}`);
  expect(got.status, got.text).toBe(200);
  return { ...u, name: got.body.name };
}

async function createTicket(body: Record<string, unknown>, token?: string, server = s) {
  const res = await server.api('POST', '/tickets', { body: { queue_id: generalId, ...body }, token });
  expect(res.status, res.text).toBe(201);
  // A requester's answer has no scrip results (decision 050): staff read them on the history.
  if (!('scrip_results' in res.body)) {
    expect(Object.keys(res.body)).toEqual(['ticket']);
    const history = await server.api('GET', `/tickets/${res.body.ticket.id}/transactions`);
    res.body.scrip_results = history.body.transactions[0].scrip_results;
  }
  expect(Object.keys(res.body).sort()).toEqual(['scrip_results', 'ticket']);
  return res.body as { ticket: Record<string, any>; scrip_results: Record<string, any>[] };
}

async function patchTicket(id: number, body: Record<string, unknown>, token?: string) {
  const res = await s.api('PATCH', `/tickets/${id}`, { body, token });
  expect(res.status, res.text).toBe(200);
  return res.body as { ticket: Record<string, any>; scrip_results: Record<string, any>[] };
}

async function comment(id: number, body: Record<string, unknown>, token?: string) {
  const res = await s.api('POST', `/tickets/${id}/comment`, { body, token });
  expect(res.status, res.text).toBe(201);
  // A requester's answer has no scrip results (decision 050): staff read them on the history.
  if (!('scrip_results' in res.body)) {
    const staff = await s.api('GET', `/tickets/${id}/transactions/${res.body.transaction.id}`);
    res.body.scrip_results = staff.body.transaction.scrip_results;
  }
  return res.body as { transaction: Record<string, any>; scrip_results: Record<string, any>[] };
}

const outboxOf = (ticketId: number, server = s) => outboxOfServer(server, ticketId);

/** Waits until every outbox row of the ticket is delivered, so the sink holds all its mail. */
const settle = (ticketId: number) => settleOutbox(s, ticketId);

/** The ticket a mail is about, as its X-Hxdesk-Ticket header says. */
const ticketHeader = (m: ReceivedMail) => m.parsed.headers.get('x-hxdesk-ticket');
/** Every mail the sink received about this ticket, in arrival order. */
const mailsOf = (ticketId: number) => sink.messages.filter((m) => String(ticketHeader(m)) === String(ticketId));
const header = (m: ReceivedMail, name: string) => String(m.parsed.headers.get(name) ?? '');

/** The first mail the sink received that `pred` holds for, waiting for it. */
async function firstMailWhere(label: string, pred: (m: ReceivedMail) => boolean) {
  return until(label, () => sink.messages.find(pred));
}

const result = (key: string, ok: boolean, notifications: number) => ({
  scrip_id: scripIds[key],
  key,
  action: expect.any(String),
  ok,
  notifications,
});

beforeAll(async () => {
  sink = await startSmtpSink();
  s = await startServer({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50' });
  generalId = (await s.api('GET', '/queues')).body.queues.find((q: { name: string }) => q.name === 'General').id;
  // A new install's General has its administrator as AdminCc (decision 019); these tests count the
  // mail of the people they name, on a queue nobody else watches.
  expect((await s.api('PATCH', `/queues/${generalId}`, { body: { admin_cc: [] } })).status).toBe(200);
  scripIds = Object.fromEntries(
    (await s.api('GET', '/scrips')).body.scrips.map((x: { key: string; id: number }) => [x.key, x.id]),
  );
});
afterAll(async () => {
  await s?.close();
  await sink?.close();
});

describe('on create: the autoreply', () => {
  it('goes to the requester with the subject tag, auto-replied headers, a Message-ID and the rendered body', async () => {
    const requester = await person(s, 'requester');
    const subject = uniq('Printer on fire');
    const { ticket, scrip_results } = await createTicket({
      subject,
      requester_id: requester.id,
      description: 'Smoke everywhere',
    });
    expect(scrip_results).toEqual([
      {
        scrip_id: scripIds.autoreply_on_create,
        key: 'autoreply_on_create',
        action: 'autoreply_requester',
        ok: true,
        notifications: 1,
      },
      // No owner, AdminCc or team: no staff watcher to tell.
      {
        scrip_id: scripIds.notify_staff_on_create,
        key: 'notify_staff_on_create',
        action: 'notify_staff_watchers',
        ok: true,
        notifications: 0,
      },
    ]);
    // Stored on the Create transaction.
    const txs = await transactionsOf(s, ticket.id);
    expect(txs.map((t) => t.type)).toEqual(['Create']);
    expect(txs[0].scrip_results).toEqual(scrip_results);

    const rows = await settle(ticket.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'email',
      recipient: requester.email,
      status: 'sent',
      attempts: 1,
      transaction_id: txs[0].id,
      scrip_id: scripIds.autoreply_on_create,
    });

    const mails = mailsOf(ticket.id);
    expect(mails).toHaveLength(1);
    const m = mails[0];
    expect(m.envelope.to).toEqual([requester.email]);
    expect(m.parsed.subject).toContain(`[hxdesk #${ticket.id}]`);
    expect(m.parsed.subject).toContain(subject);
    expect(header(m, 'auto-submitted')).toBe('auto-replied');
    expect(header(m, 'x-auto-response-suppress')).toBe('All');
    expect(m.parsed.messageId).toMatch(/^<[^<>\s]+@[^<>\s]+>$/);
    expect(m.parsed.messageId).toBe(rows[0].message_id);
    expect(m.parsed.inReplyTo).toBeUndefined();
    expect(m.parsed.text).toContain(subject);
    expect(m.parsed.text).toContain(requester.name);
    expect(m.parsed.text).toContain(`#${ticket.id}`);
    expect(m.parsed.text).not.toMatch(/\{\{|\{%/);
  });

  it('goes to the requester even when the requester is the actor (the autoreply exception)', async () => {
    const requester = await person(s, 'requester');
    const subject = uniq('My own ticket');
    const { ticket, scrip_results } = await createTicket({ subject }, requester.token);
    expect(ticket.requester_id).toBe(requester.id);
    expect(scrip_results).toEqual([result('autoreply_on_create', true, 1), result('notify_staff_on_create', true, 0)]);
    await settle(ticket.id);
    expect(mailsOf(ticket.id).map((m) => m.envelope.to)).toEqual([[requester.email]]);
  });

  it('is not sent to a disabled requester', async () => {
    const requester = await person(s, 'requester');
    expect((await s.api('PATCH', `/users/${requester.id}`, { body: { disabled: true } })).status).toBe(200);
    const { ticket, scrip_results } = await createTicket({
      subject: uniq('Disabled requester'),
      requester_id: requester.id,
    });
    expect(scrip_results).toEqual([result('autoreply_on_create', true, 0), result('notify_staff_on_create', true, 0)]);
    expect(await outboxOf(ticket.id)).toEqual([]);
  });
});

describe('on correspond and comment', () => {
  let requester: Person;
  let owner: Person;
  let actor: Person;
  let ticketId: number;
  let subject: string;
  let autoreplyId: string;

  beforeAll(async () => {
    requester = await person(s, 'requester');
    owner = await person(s, 'agent');
    actor = await person(s, 'agent');
    subject = uniq('VPN drops');
    const { ticket } = await createTicket({ subject, requester_id: requester.id, owner_id: owner.id });
    ticketId = ticket.id;
    const rows = await settle(ticketId);
    // The autoreply to the requester, and the owner (a staff watcher) hears of the new ticket.
    expect(rows.map((r) => [r.recipient, r.audience])).toEqual([
      [requester.email, 'customer'],
      [owner.email, 'staff'],
    ]);
    autoreplyId = rows[0].message_id;
  });

  it('a public reply goes to the requester (a human reply: no Auto-Submitted) and a staff copy to the owner, threaded to the ticket', async () => {
    const text = uniq('We restarted the VPN concentrator.');
    const { transaction, scrip_results } = await comment(ticketId, { body: text, internal: false }, actor.token);
    expect(transaction).toMatchObject({ type: 'Correspond', creator_id: actor.id, body: text });
    expect(scrip_results).toEqual([
      {
        scrip_id: scripIds.notify_requester_on_correspond,
        key: 'notify_requester_on_correspond',
        action: 'notify_requesters_and_cc',
        ok: true,
        notifications: 1,
      },
      {
        scrip_id: scripIds.notify_owner_on_correspond,
        key: 'notify_owner_on_correspond',
        action: 'notify_owner_and_admin_cc',
        ok: true,
        notifications: 1,
      },
      {
        scrip_id: scripIds.open_on_staff_reply,
        key: 'open_on_staff_reply',
        action: 'open_new',
        ok: true,
        notifications: 0,
      },
      {
        scrip_id: scripIds.open_inactive_on_correspond,
        key: 'open_inactive_on_correspond',
        action: 'open_inactive',
        ok: true,
        notifications: 0,
      },
    ]);
    const stored = (await transactionsOf(s, ticketId)).find((t) => t.id === transaction.id)!;
    expect(stored.scrip_results).toEqual(scrip_results);

    await settle(ticketId);
    const replies = mailsOf(ticketId).filter((m) => m.parsed.text?.includes(text));
    expect(replies.map((m) => m.envelope.to[0]).sort()).toEqual([owner.email, requester.email].sort());
    for (const m of replies) {
      expect(m.envelope.to).toHaveLength(1);
      expect(m.parsed.subject).toContain(`[hxdesk #${ticketId}]`);
      expect(m.parsed.subject).toContain(subject);
      const toCustomer = m.envelope.to[0] === requester.email;
      // SPEC C3: a human reply relayed to the customer is not automatic mail; the staff copy is.
      expect(header(m, 'auto-submitted')).toBe(toCustomer ? '' : 'auto-generated');
      if (toCustomer) expect(m.parsed.inReplyTo).toBe(autoreplyId);
      expect(refs(m)).toContain(autoreplyId);
      expect(m.parsed.messageId).toMatch(/^<[^<>\s]+@[^<>\s]+>$/);
      expect(m.parsed.messageId).not.toBe(autoreplyId);
    }
    expect(new Set(replies.map((m) => m.parsed.messageId)).size).toBe(2);
    // The actor gets none of it.
    expect(mailsTo(sink, actor.email)).toEqual([]);
  });

  it('an internal comment (the default) sends no mail to the requester', async () => {
    const before = (await outboxOf(ticketId)).length;
    const note = uniq('Internal: the user keeps the VPN open overnight.');
    const { transaction, scrip_results } = await comment(ticketId, { body: note }, actor.token);
    expect(transaction.type).toBe('Comment');
    // SPEC C2: a note goes to the owner and AdminCc only.
    expect(scrip_results).toEqual([result('notify_staff_on_comment', true, 1)]);
    expect((await transactionsOf(s, ticketId)).find((t) => t.id === transaction.id)!.scrip_results).toEqual(
      scrip_results,
    );
    expect((await outboxOf(ticketId)).slice(before).map((r) => [r.recipient, r.audience])).toEqual([
      [owner.email, 'staff'],
    ]);

    // Something that does mail the requester afterwards; once it is here, the note would be too.
    const marker = uniq('Public follow-up.');
    await comment(ticketId, { body: marker, internal: false }, actor.token);
    await firstMailWhere(
      'the follow-up to the requester',
      (m) => m.envelope.to.includes(requester.email) && !!m.parsed.text?.includes(marker),
    );
    await settle(ticketId);
    expect(sink.messages.filter((m) => m.parsed.text?.includes(note)).map((m) => m.envelope.to)).toEqual([
      [owner.email],
    ]);
    expect(mailsTo(sink, requester.email).filter((m) => String(ticketHeader(m)) === String(ticketId))).toHaveLength(3); // autoreply + 2 replies
  });

  it('the owner replying gets nothing of their own reply; the requester does', async () => {
    const text = uniq('Owner here: fixed.');
    const ownerMailsBefore = mailsTo(sink, owner.email).length;
    const { scrip_results } = await comment(ticketId, { body: text, internal: false }, owner.token);
    expect(scrip_results).toEqual([
      result('notify_requester_on_correspond', true, 1),
      result('notify_owner_on_correspond', true, 0),
      result('open_on_staff_reply', true, 0),
      result('open_inactive_on_correspond', true, 0),
    ]);
    await firstMailWhere(
      'the owner reply to the requester',
      (m) => m.envelope.to.includes(requester.email) && !!m.parsed.text?.includes(text),
    );
    await settle(ticketId);
    const about = mailsOf(ticketId).filter((m) => m.parsed.text?.includes(text));
    expect(about.map((m) => m.envelope.to)).toEqual([[requester.email]]);
    expect(mailsTo(sink, owner.email)).toHaveLength(ownerMailsBefore);
  });

  it('a requester replying is not sent their own reply; the owner gets it', async () => {
    const text = uniq('Requester: still broken.');
    const { transaction, scrip_results } = await comment(ticketId, { body: text }, requester.token);
    expect(transaction.type).toBe('Correspond');
    expect(scrip_results).toEqual([
      result('notify_requester_on_correspond', true, 0),
      result('notify_owner_on_correspond', true, 1),
      result('notify_staff_on_customer_reply', true, 0), // the owner has it already: one mail per person
      result('open_inactive_on_correspond', true, 0),
    ]);
    await settle(ticketId);
    const about = mailsOf(ticketId).filter((m) => m.parsed.text?.includes(text));
    expect(about.map((m) => m.envelope.to)).toEqual([[owner.email]]);
  });
});

describe('each address once per notification', () => {
  it('an agent who is both requester and owner gets a reply once, not once per scrip', async () => {
    const both = await person(s, 'agent');
    const replier = await person(s, 'agent');
    const { ticket } = await createTicket({ subject: uniq('My own laptop'), requester_id: both.id, owner_id: both.id });
    await settle(ticket.id);
    const text = uniq('Swapped the battery.');
    const { transaction, scrip_results } = await comment(ticket.id, { body: text, internal: false }, replier.token);
    expect(scrip_results).toEqual([
      result('notify_requester_on_correspond', true, 1),
      result('notify_owner_on_correspond', true, 0),
      result('open_on_staff_reply', true, 0),
      result('open_inactive_on_correspond', true, 0),
    ]);
    const rows = (await settle(ticket.id)).filter((r) => r.transaction_id === transaction.id);
    expect(rows.map((r) => r.recipient)).toEqual([both.email]);
    expect(
      mailsOf(ticket.id)
        .filter((m) => m.parsed.text?.includes(text))
        .map((m) => m.envelope.to),
    ).toEqual([[both.email]]);
  });
});

describe('on owner and team change', () => {
  it('the new owner gets the Owner notice; nobody else; an owner taking a ticket gets nothing', async () => {
    const requester = await person(s, 'requester');
    const owner = await person(s, 'agent');
    const taker = await person(s, 'agent');
    const subject = uniq('Monitor flickers');
    const { ticket } = await createTicket({ subject, requester_id: requester.id });
    await settle(ticket.id);

    const { scrip_results, ticket: after } = await patchTicket(ticket.id, { owner_id: owner.id });
    expect(after.owner_id).toBe(owner.id);
    expect(scrip_results).toEqual([
      {
        scrip_id: scripIds.notify_owner_on_owner_change,
        key: 'notify_owner_on_owner_change',
        action: 'notify_owner',
        ok: true,
        notifications: 1,
      },
    ]);
    const tx = (await transactionsOf(s, ticket.id)).find((t) => t.type === 'SetOwner')!;
    expect(tx).toMatchObject({ field: 'owner_id', new_value: String(owner.id) });
    expect(tx.scrip_results).toEqual(scrip_results);
    await settle(ticket.id);
    const notices = mailsOf(ticket.id).filter((m) => m.parsed.subject?.includes('assigned to you'));
    expect(notices).toHaveLength(1);
    const m = notices[0];
    expect(m.envelope.to).toEqual([owner.email]);
    expect(m.parsed.subject).toBe(`[hxdesk #${ticket.id}] Ticket #${ticket.id} is assigned to you: ${subject}`);
    expect(header(m, 'auto-submitted')).toBe('auto-generated');
    expect(m.parsed.text).toContain(owner.name);
    expect(m.parsed.text).toContain(requester.email);
    expect(m.parsed.text).toContain(subject);
    expect(mailsOf(ticket.id).map((x) => x.envelope.to[0])).toEqual([requester.email, owner.email]);

    // The taker assigns the ticket to themselves (taking it from the owner, as asked: SPEC D6): no mail to the actor.
    const taken = await patchTicket(ticket.id, { owner_id: taker.id, confirm_owner_id: owner.id }, taker.token);
    expect(taken.scrip_results).toEqual([
      result('notify_owner_on_owner_change', true, 0),
      result('open_on_staff_reply', true, 0),
    ]);
    // Then hands it back, which does mail the previous owner: once that is here, the taker's would be too.
    await patchTicket(ticket.id, { owner_id: owner.id }, taker.token);
    await until(
      'the second Owner notice',
      () => mailsTo(sink, owner.email).filter((x) => String(ticketHeader(x)) === String(ticket.id)).length === 2,
    );
    await settle(ticket.id);
    expect(mailsTo(sink, taker.email)).toEqual([]);
  });

  it('every active member of the new team gets the Team notice once, except the actor and disabled users', async () => {
    const requester = await person(s, 'requester');
    const actor = await person(s, 'agent');
    const member = await person(s, 'agent');
    const ownerMember = await person(s, 'agent');
    const disabled = await person(s, 'agent');
    const team = await s.api('POST', '/teams', { body: { name: uniq('Network team') } });
    expect(team.status, team.text).toBe(201);
    for (const u of [actor, member, ownerMember, disabled]) {
      const r = await s.api('POST', `/teams/${team.body.id}/members`, { body: { user_id: u.id } });
      expect(r.status, r.text).toBe(201);
    }
    expect((await s.api('PATCH', `/users/${disabled.id}`, { body: { disabled: true } })).status).toBe(200);

    const subject = uniq('Switch down');
    const { ticket } = await createTicket({
      subject,
      requester_id: requester.id,
      owner_id: ownerMember.id,
      team_id: null,
    });
    await settle(ticket.id);
    const { scrip_results } = await patchTicket(ticket.id, { team_id: team.body.id }, actor.token);
    expect(scrip_results).toEqual([
      {
        scrip_id: scripIds.notify_team_on_team_change,
        key: 'notify_team_on_team_change',
        action: 'notify_team',
        ok: true,
        notifications: 2,
      },
    ]);
    const tx = (await transactionsOf(s, ticket.id)).find((t) => t.type === 'SetTeam')!;
    expect(tx.scrip_results).toEqual(scrip_results);
    const rows = (await settle(ticket.id)).filter((r) => r.transaction_id === tx.id);
    expect(rows.map((r) => r.recipient).sort()).toEqual([member.email, ownerMember.email].sort());

    const notices = mailsOf(ticket.id).filter((m) => m.parsed.subject?.includes('moved to team'));
    expect(notices.map((m) => m.envelope.to[0]).sort()).toEqual([member.email, ownerMember.email].sort());
    for (const m of notices) {
      expect(m.envelope.to).toHaveLength(1);
      expect(m.parsed.subject).toContain(`[hxdesk #${ticket.id}]`);
      expect(m.parsed.subject).toContain(team.body.name);
      expect(header(m, 'auto-submitted')).toBe('auto-generated');
    }
    expect(mailsTo(sink, actor.email)).toEqual([]);
    expect(mailsTo(sink, disabled.email)).toEqual([]);
  });

  it('one PATCH changing owner and team records both transactions, each with its own results', async () => {
    const requester = await person(s, 'requester');
    const owner = await person(s, 'agent');
    const team = await s.api('POST', '/teams', { body: { name: uniq('Desk team') } });
    expect((await s.api('POST', `/teams/${team.body.id}/members`, { body: { user_id: owner.id } })).status).toBe(201);
    const { ticket } = await createTicket({ subject: uniq('Both'), requester_id: requester.id, team_id: null });
    await settle(ticket.id);
    const { scrip_results } = await patchTicket(ticket.id, { owner_id: owner.id, team_id: team.body.id });
    expect(scrip_results).toEqual([
      result('notify_owner_on_owner_change', true, 1),
      result('notify_team_on_team_change', true, 1),
    ]);
    const txs = await transactionsOf(s, ticket.id);
    expect(txs.find((t) => t.type === 'SetOwner')!.scrip_results).toEqual([scrip_results[0]]);
    expect(txs.find((t) => t.type === 'SetTeam')!.scrip_results).toEqual([scrip_results[1]]);
    await settle(ticket.id);
    expect(mailsTo(sink, owner.email).map((m) => m.parsed.subject)).toEqual([
      expect.stringContaining('assigned to you'),
      expect.stringContaining('moved to team'),
    ]);
  });
});

describe('resolve and reopen', () => {
  it('resolving mails the requester; a reply reopens the ticket by a scrip-made Status transaction that runs no scrips', async () => {
    const queue = await s.api('POST', '/queues', { body: { name: uniq('Reopen queue') } });
    expect(queue.status, queue.text).toBe(201);
    const tpl = await s.api('POST', '/templates', {
      body: {
        name: uniq('Status notice'),
        subject: 'Status is now {{ ticket.status }}',
        body: 'Status: {{ ticket.status }} ({{ transaction.old_value }} -> {{ transaction.new_value }})',
      },
    });
    expect(tpl.status, tpl.text).toBe(201);
    // Would mail the requester on *every* Status transaction of this queue, were it triggered.
    const watcher = await s.api('POST', '/scrips', {
      body: {
        key: uniq('status_watch_'),
        condition: 'on_status_change',
        action: 'notify_requester',
        template_id: tpl.body.id,
        queue_id: queue.body.id,
        sort_order: 100,
      },
    });
    expect(watcher.status, watcher.text).toBe(201);

    const requester = await person(s, 'requester');
    const owner = await person(s, 'agent');
    const subject = uniq('Cannot print');
    const { ticket } = await createTicket({
      queue_id: queue.body.id,
      subject,
      requester_id: requester.id,
      owner_id: owner.id,
    });
    await settle(ticket.id);

    const resolved = await patchTicket(ticket.id, { status: 'resolved' }, owner.token);
    expect(resolved.ticket.status).toBe('resolved');
    expect(resolved.scrip_results).toEqual([
      result('notify_requester_on_resolve', true, 1),
      { scrip_id: watcher.body.id, key: watcher.body.key, action: 'notify_requester', ok: true, notifications: 1 },
    ]);
    await settle(ticket.id);
    const resolvedMail = mailsOf(ticket.id).filter((m) => m.parsed.subject?.includes('Resolved:'));
    expect(resolvedMail).toHaveLength(1);
    expect(resolvedMail[0].envelope.to).toEqual([requester.email]);
    expect(resolvedMail[0].parsed.subject).toBe(`[hxdesk #${ticket.id}] Resolved: ${subject}`);
    expect(resolvedMail[0].parsed.text).toContain(requester.name);
    expect(header(resolvedMail[0], 'auto-submitted')).toBe('auto-generated');

    // The requester replies to the resolved ticket.
    const text = uniq('It is still broken!');
    const reply = await comment(ticket.id, { body: text }, requester.token);
    expect(reply.transaction.type).toBe('Correspond');
    expect(reply.scrip_results).toEqual([
      result('notify_requester_on_correspond', true, 0),
      result('notify_owner_on_correspond', true, 1),
      result('notify_staff_on_customer_reply', true, 0),
      result('open_inactive_on_correspond', true, 0),
    ]);
    const now = (await s.api('GET', `/tickets/${ticket.id}`)).body;
    expect(now.status).toBe('open');
    expect(now.resolved_at).toBeNull();
    const txs = await transactionsOf(s, ticket.id);
    const i = txs.findIndex((t) => t.id === reply.transaction.id);
    expect(txs.slice(i).map((t) => t.type)).toEqual(['Correspond', 'Status']);
    const reopen = txs[i + 1];
    expect(reopen).toMatchObject({
      creator_id: null,
      field: 'status',
      old_value: 'resolved',
      new_value: 'open',
      scrip_results: [],
    });
    expect(txs[i].scrip_results).toEqual(reply.scrip_results);
    // No outbox row came from the scrip-made transaction.
    expect((await outboxOf(ticket.id)).filter((r) => r.transaction_id === reopen.id)).toEqual([]);

    // A later status change by a person does trigger the watcher; once its mail is here, a
    // mail from the reopen would be too.
    const stalled = await patchTicket(ticket.id, { status: 'stalled' }, owner.token);
    expect(stalled.scrip_results).toEqual([
      { scrip_id: watcher.body.id, key: watcher.body.key, action: 'notify_requester', ok: true, notifications: 1 },
    ]);
    await firstMailWhere(
      'the stalled notice',
      (m) =>
        m.envelope.to.includes(requester.email) && m.parsed.subject === `[hxdesk #${ticket.id}] Status is now stalled`,
    );
    await settle(ticket.id);
    const statusMails = mailsOf(ticket.id).filter((m) => m.parsed.subject?.includes('Status is now'));
    expect(statusMails.map((m) => m.parsed.subject)).toEqual([
      `[hxdesk #${ticket.id}] Status is now resolved`,
      `[hxdesk #${ticket.id}] Status is now stalled`,
    ]);
    expect(mailsOf(ticket.id).filter((m) => m.parsed.subject?.includes('Resolved:'))).toHaveLength(1);
    expect(
      mailsOf(ticket.id)
        .filter((m) => m.envelope.to.includes(owner.email))
        .map((m) => m.parsed.subject),
    ).toEqual([expect.stringContaining('New ticket:'), expect.stringContaining('Re: ')]);
    expect(mailsOf(ticket.id).filter((m) => m.envelope.to.includes(owner.email))[1].parsed.text).toContain(text);
  });
});

describe('which scrips run', () => {
  it('queue scrips fire only for their queue, disabled scrips never, and sort_order orders the results', async () => {
    const qs = await s.api('POST', '/queues', {
      body: { name: uniq('Scrip queue'), mail_alias: `${uniq('scrips-')}@example.com` },
    });
    const other = await s.api('POST', '/queues', { body: { name: uniq('Other queue') } });
    expect(qs.status, qs.text).toBe(201);
    expect(other.status, other.text).toBe(201);
    const extra = await s.api('POST', '/templates', {
      body: { name: uniq('Extra notice'), subject: 'Extra: {{ ticket.subject }}', body: 'Extra' },
    });
    expect(extra.status, extra.text).toBe(201);
    const mk = async (key: string, extra: Record<string, unknown>) => {
      const res = await s.api('POST', '/scrips', {
        body: { key: uniq(`${key}_`), condition: 'on_create', action: 'open_inactive', ...extra },
      });
      expect(res.status, res.text).toBe(201);
      return res.body as { id: number; key: string };
    };
    const late = await mk('late', { queue_id: qs.body.id, sort_order: 15 });
    const first = await mk('first', { queue_id: qs.body.id, sort_order: -5 });
    const middle = await mk('middle', { queue_id: qs.body.id, sort_order: 5 });
    const off = await mk('off', {
      queue_id: qs.body.id,
      sort_order: 1,
      enabled: false,
      action: 'notify_requester',
      template_id: extra.body.id,
    });
    const elsewhere = await mk('elsewhere', { queue_id: other.body.id, sort_order: 0 });

    const requester = await person(s, 'requester');
    const keys = (r: { scrip_results: Record<string, any>[] }) => r.scrip_results.map((x) => x.key as string);

    const inQs = await createTicket({
      queue_id: qs.body.id,
      subject: uniq('In scrip queue'),
      requester_id: requester.id,
    });
    // notify_staff_on_create shares sort_order 15 with `late` and is older: the id breaks the tie.
    expect(keys(inQs)).toEqual([first.key, middle.key, 'autoreply_on_create', 'notify_staff_on_create', late.key]);
    expect(inQs.scrip_results.every((r) => r.ok)).toBe(true);
    expect((await transactionsOf(s, inQs.ticket.id))[0].scrip_results).toEqual(inQs.scrip_results);
    const rows = await settle(inQs.ticket.id);
    expect(rows.map((r) => r.scrip_id)).toEqual([scripIds.autoreply_on_create]); // the disabled mail scrip wrote nothing
    const auto = mailsOf(inQs.ticket.id);
    expect(auto).toHaveLength(1);
    expect(auto[0].parsed.from?.value[0].address).toBe(qs.body.mail_alias); // From is the queue's address

    const inGeneral = await createTicket({ subject: uniq('In General'), requester_id: requester.id });
    expect(keys(inGeneral)).toEqual(['autoreply_on_create', 'notify_staff_on_create']);
    const inOther = await createTicket({
      queue_id: other.body.id,
      subject: uniq('In other queue'),
      requester_id: requester.id,
    });
    expect(keys(inOther)).toEqual([elsewhere.key, 'autoreply_on_create', 'notify_staff_on_create']);

    // Re-order and enable through the API: the next ticket sees the new order and the enabled scrip.
    expect((await s.api('PATCH', `/scrips/${late.id}`, { body: { sort_order: -10 } })).status).toBe(200);
    expect((await s.api('PATCH', `/scrips/${off.id}`, { body: { enabled: true } })).status).toBe(200);
    const again = await createTicket({ queue_id: qs.body.id, subject: uniq('Again'), requester_id: requester.id });
    expect(keys(again)).toEqual([
      late.key,
      first.key,
      off.key,
      middle.key,
      'autoreply_on_create',
      'notify_staff_on_create',
    ]);
    expect(again.scrip_results.find((r) => r.key === off.key)).toEqual({
      scrip_id: off.id,
      key: off.key,
      action: 'notify_requester',
      ok: true,
      notifications: 1,
    });
    const rows2 = await settle(again.ticket.id);
    expect(rows2.map((r) => r.scrip_id)).toEqual([off.id, scripIds.autoreply_on_create]);
    expect(mailsOf(again.ticket.id).map((m) => m.envelope.to)).toEqual([[requester.email], [requester.email]]);

    // Disabled again, and a global default disabled too: neither runs.
    expect((await s.api('PATCH', `/scrips/${off.id}`, { body: { enabled: false } })).status).toBe(200);
    expect((await s.api('PATCH', `/scrips/${scripIds.autoreply_on_create}`, { body: { enabled: false } })).status).toBe(
      200,
    );
    try {
      const quiet = await createTicket({ queue_id: qs.body.id, subject: uniq('Quiet'), requester_id: requester.id });
      expect(keys(quiet)).toEqual([late.key, first.key, middle.key, 'notify_staff_on_create']);
      expect(await outboxOf(quiet.ticket.id)).toEqual([]);
    } finally {
      expect(
        (await s.api('PATCH', `/scrips/${scripIds.autoreply_on_create}`, { body: { enabled: true } })).status,
      ).toBe(200);
    }
    // A deleted scrip no longer runs either.
    expect((await s.api('DELETE', `/scrips/${first.id}`)).status).toBe(204);
    const last = await createTicket({ queue_id: qs.body.id, subject: uniq('Last'), requester_id: requester.id });
    expect(keys(last)).toEqual([late.key, middle.key, 'autoreply_on_create', 'notify_staff_on_create']);
  });
});

describe('set_status', () => {
  it('changes the status by a Status transaction by nobody, which triggers no scrips', async () => {
    const queue = await s.api('POST', '/queues', { body: { name: uniq('Auto-open queue') } });
    expect(queue.status, queue.text).toBe(201);
    const tpl = await s.api('POST', '/templates', {
      body: { name: uniq('Status changed'), subject: 'Changed to {{ ticket.status }}', body: '{{ ticket.status }}' },
    });
    const set = await s.api('POST', '/scrips', {
      body: {
        key: uniq('auto_open_'),
        condition: 'on_create',
        action: 'set_status',
        config: { status: 'open' },
        queue_id: queue.body.id,
      },
    });
    expect(set.status, set.text).toBe(201);
    const watcher = await s.api('POST', '/scrips', {
      body: {
        key: uniq('watch_'),
        condition: 'on_status_change',
        action: 'notify_requester',
        template_id: tpl.body.id,
        queue_id: queue.body.id,
      },
    });
    expect(watcher.status, watcher.text).toBe(201);
    const requester = await person(s, 'requester');
    const { ticket, scrip_results } = await createTicket({
      queue_id: queue.body.id,
      subject: uniq('Open me'),
      requester_id: requester.id,
    });
    expect(ticket.status).toBe('open');
    expect(scrip_results).toEqual([
      { scrip_id: set.body.id, key: set.body.key, action: 'set_status', ok: true, notifications: 0 },
      result('autoreply_on_create', true, 1),
      result('notify_staff_on_create', true, 0),
    ]);
    const txs = await transactionsOf(s, ticket.id);
    expect(txs.map((t) => [t.type, t.creator_id, t.old_value, t.new_value, t.scrip_results])).toEqual([
      ['Create', expect.any(Number), null, null, scrip_results],
      ['Status', null, 'new', 'open', []],
    ]);
    const rows = await settle(ticket.id);
    expect(rows.map((r) => r.scrip_id)).toEqual([scripIds.autoreply_on_create]);
    expect(mailsOf(ticket.id)).toHaveLength(1);
  });
});

describe('a scrip whose action throws', () => {
  it('is reported ok:false with its error; the change commits and the other scrips still run and mail', async () => {
    const queue = await s.api('POST', '/queues', { body: { name: uniq('Broken queue') } });
    expect(queue.status, queue.text).toBe(201);
    const mk = async (key: string, condition: string, sort_order: number) => {
      const res = await s.api('POST', '/scrips', {
        body: {
          key: uniq(`${key}_`),
          condition,
          action: 'set_status',
          config: { status: 'open' },
          queue_id: queue.body.id,
          sort_order,
        },
      });
      expect(res.status, res.text).toBe(201);
      // Damage it behind the API's back, the way a bad migration or hand edit might.
      expect(await rawConfigRun(s, 'UPDATE scrips SET config=\'{"status":"bogus"}\' WHERE key=?', [res.body.key])).toBe(
        1,
      );
      return res.body as { id: number; key: string };
    };
    const before = await mk('broken_before', 'on_create', 5);
    const after = await mk('broken_after', 'on_create', 15);
    const onPriority = await mk('broken_priority', 'on_priority_change', 0);

    const requester = await person(s, 'requester');
    const subject = uniq('Scrips are broken');
    const res = await s.api('POST', '/tickets', {
      body: { queue_id: queue.body.id, subject, requester_id: requester.id },
    });
    expect(res.status, res.text).toBe(201);
    const { ticket, scrip_results } = res.body;
    expect(scrip_results).toEqual([
      {
        scrip_id: before.id,
        key: before.key,
        action: 'set_status',
        ok: false,
        notifications: 0,
        error: expect.stringContaining('config.status'),
      },
      {
        scrip_id: scripIds.autoreply_on_create,
        key: 'autoreply_on_create',
        action: 'autoreply_requester',
        ok: true,
        notifications: 1,
      },
      {
        scrip_id: scripIds.notify_staff_on_create,
        key: 'notify_staff_on_create',
        action: 'notify_staff_watchers',
        ok: true,
        notifications: 0,
      },
      {
        scrip_id: after.id,
        key: after.key,
        action: 'set_status',
        ok: false,
        notifications: 0,
        error: expect.stringContaining('config.status'),
      },
    ]);
    // The ticket is stored, untouched by the failed set_status.
    const got = await s.api('GET', `/tickets/${ticket.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: ticket.id, subject, status: 'new', requester_id: requester.id });
    const txs = await transactionsOf(s, ticket.id);
    expect(txs.map((t) => t.type)).toEqual(['Create']);
    expect(txs[0].scrip_results).toEqual(scrip_results);
    // The other scrip's mail arrives.
    const m = await firstMailWhere('the autoreply', (x) => String(ticketHeader(x)) === String(ticket.id));
    expect(m.envelope.to).toEqual([requester.email]);
    expect(m.parsed.text).toContain(subject);

    // The same on an update: 200, change stored.
    const patched = await s.api('PATCH', `/tickets/${ticket.id}`, { body: { priority: 70 } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.ticket.priority).toBe(70);
    expect(patched.body.scrip_results).toEqual([
      {
        scrip_id: onPriority.id,
        key: onPriority.key,
        action: 'set_status',
        ok: false,
        notifications: 0,
        error: expect.stringContaining('config.status'),
      },
    ]);
    expect((await s.api('GET', `/tickets/${ticket.id}`)).body).toMatchObject({ priority: 70, status: 'new' });
    expect((await transactionsOf(s, ticket.id)).find((t) => t.type === 'SetPriority')!.scrip_results).toEqual(
      patched.body.scrip_results,
    );
  });
});

describe('without SMTP_URL', () => {
  let s2: TestServer;
  let hook: http.Server;
  let hookUrl: string;
  const received: string[] = [];

  beforeAll(async () => {
    hook = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    s2 = await startServer({ OUTBOX_POLL_MS: '50' });
  });
  afterAll(async () => {
    await s2?.close();
    await new Promise<void>((resolve) => hook.close(() => resolve()));
  });

  it('mail rows stay queued, visible in GET /outbox to admins (agents 403)', async () => {
    const general = (await s2.api('GET', '/queues')).body.queues.find((q: { name: string }) => q.name === 'General').id;
    // A webhook after the autoreply, delivered by the same worker: proof that it ran past the mail.
    const w = await s2.api('POST', '/scrips', {
      body: {
        key: 'hook_on_create',
        condition: 'on_create',
        action: 'notify_webhook',
        config: { url: hookUrl },
        sort_order: 99,
      },
    });
    expect(w.status, w.text).toBe(201);
    const requester = await person(s2, 'requester');
    const agent = await person(s2, 'agent');
    const subject = uniq('Queued mail');
    const { ticket, scrip_results } = await createTicket(
      { queue_id: general, subject, requester_id: requester.id },
      undefined,
      s2,
    );
    expect(scrip_results.map((r) => [r.key, r.ok, r.notifications])).toEqual([
      ['autoreply_on_create', true, 1],
      ['notify_staff_on_create', true, 0],
      ['hook_on_create', true, 1],
    ]);

    await until('the webhook delivery', async () => {
      const res = await s2.api('GET', `/outbox?ticket_id=${ticket.id}`);
      return res.body.outbox.some((r: { kind: string; status: string }) => r.kind === 'webhook' && r.status === 'sent');
    });
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]).ticket.id).toBe(ticket.id);

    const res = await s2.api('GET', `/outbox?ticket_id=${ticket.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    const mail = res.body.outbox.find((r: { kind: string }) => r.kind === 'email');
    expect(mail).toMatchObject({
      kind: 'email',
      ticket_id: ticket.id,
      recipient: requester.email,
      status: 'queued',
      attempts: 0,
      last_error: null,
      sent_at: null,
      scrip_id: scrip_results[0].scrip_id,
    });
    expect(mail.subject).toContain(`[hxdesk #${ticket.id}]`);
    expect(mail.subject).toContain(subject);
    expect(mail.body).toContain(subject);
    expect(mail.headers['Auto-Submitted']).toBe('auto-replied');
    expect(mail.message_id).toMatch(/^<[^<>\s]+@[^<>\s]+>$/);

    const queued = await s2.api('GET', '/outbox?status=queued');
    expect(queued.status).toBe(200);
    expect(queued.body.outbox.map((r: { id: number }) => r.id)).toContain(mail.id);
    const one = await s2.api('GET', `/outbox/${mail.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: mail.id, status: 'queued', attempts: 0 });

    expectError(await s2.api('GET', '/outbox', { token: agent.token }), 403, 'forbidden');
    expectError(await s2.api('GET', `/outbox/${mail.id}`, { token: agent.token }), 403, 'forbidden');
    expectError(await s2.api('GET', '/outbox', { token: null }), 401, 'unauthenticated');
    expectError(await s2.api('GET', '/outbox/999999'), 404, 'not_found');

    // A later write kicks the worker again; the mail still waits.
    await createTicket({ queue_id: general, subject: uniq('Second'), requester_id: requester.id }, undefined, s2);
    await until('the second webhook', () => received.length === 2);
    expect((await s2.api('GET', `/outbox/${mail.id}`)).body).toMatchObject({ status: 'queued', attempts: 0 });
  });
});
