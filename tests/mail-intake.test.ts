import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketOf, transactionsOf, userByEmail } from './helpers/reads.js';
import { startServer, type ApiResponse, type TestServer } from './helpers/server.js';
import { startSmtpSink, type SmtpSink } from './helpers/smtp.js';
import { expectError } from './helpers/expect.js';
import { get, totals } from './helpers/mail.js';
import { mailsTo, outboxOf } from './helpers/notify.js';
import { waitUntil } from './helpers/wait.js';

// E-mail intake through POST /mailgate (SPEC B7, B6 loop rule, B5 errors; issue 4 points 1–5
// and 7). Everything goes through real HTTP against a real server on its own SQLite file; the
// corpus under tests/fixtures/mail is byte-exact RFC 822 (CRLF), and mail that goes out is
// caught by a real SMTP sink.

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'mail');
const TOKEN = 'mailgate-secret-for-tests-0123456789';

// ---- helpers ------------------------------------------------------------------------------

/** A fixture as the exact text on disk, with `{{name}}` placeholders filled in. */
function fixture(name: string, vars: Record<string, string | number> = {}): string {
  let raw = fs.readFileSync(path.join(FIXTURES, name), 'utf8');
  for (const [k, v] of Object.entries(vars)) raw = raw.replaceAll(`{{${k}}}`, String(v));
  const left = /\{\{\w+\}\}/.exec(raw);
  if (left) throw new Error(`${name}: placeholder ${left[0]} not filled`);
  return raw;
}

/** Replaces (or with null removes) header fields, folded continuation lines included; new ones go on top. */
function withHeaders(raw: string, changes: Record<string, string | null>): string {
  const end = raw.indexOf('\r\n\r\n');
  const fields: string[] = [];
  for (const line of raw.slice(0, end).split('\r\n')) {
    if (/^[ \t]/.test(line) && fields.length) fields[fields.length - 1] += `\r\n${line}`;
    else fields.push(line);
  }
  const names = Object.keys(changes).map((k) => k.toLowerCase());
  const kept = fields.filter((f) => !names.includes(f.slice(0, f.indexOf(':')).toLowerCase()));
  const added = Object.entries(changes)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}: ${v}`);
  return [...added, ...kept].join('\r\n') + raw.slice(end);
}

let seq = 0;
const newMessageId = (tag = 'msg') => `<${tag}.${++seq}.${Date.now().toString(36)}@tests.customer.example>`;
/** The same message as a distinct one: a new Message-ID, plus any other header changes. */
const fresh = (raw: string, changes: Record<string, string | null> = {}) =>
  withHeaders(raw, { 'Message-ID': newMessageId(), ...changes });
const messageIdOf = (raw: string) => /^Message-ID:\s*(<[^>]+>)/im.exec(raw)![1];

/** POST /mailgate with a raw message/rfc822 body. */
function postRaw(
  s: TestServer,
  raw: string,
  opts: { query?: string; token?: string | null; contentType?: string } = {},
) {
  const token = opts.token === undefined ? TOKEN : opts.token;
  const headers: Record<string, string> = { 'content-type': opts.contentType ?? 'message/rfc822' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return s.api('POST', `/mailgate${opts.query ?? ''}`, { token: null, headers, body: raw });
}

/** POST /mailgate with a JSON body (given as an object, or as text for broken JSON). */
function postJson(s: TestServer, body: unknown) {
  return s.api('POST', '/mailgate', {
    token: null,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body,
  });
}

/** POST /mailgate as multipart/form-data, built by FormData the way webhook senders post. */
async function postMultipart(
  s: TestServer,
  fields: Record<string, string | Blob>,
): Promise<{ status: number; body: any }> {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'string') fd.append(k, v);
    else fd.append(k, v, 'message.eml');
  }
  const res = await fetch(`${s.url}/mailgate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
    body: fd,
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text,
  };
}

const intakeEntry = (s: TestServer, id: number) => get(s, `/mail/intake/${id}`);

/** Waits until the outbox has nothing left to send and every row is `sent`: the sink then holds all mail there will be. */
async function settleOutbox(s: TestServer) {
  const rows = await waitUntil(
    'outbox delivered',
    async () => (await get(s, '/outbox?limit=500')).outbox as any[],
    (all) => all.every((r) => r.status !== 'queued' && r.status !== 'sending'),
  );
  expect(rows.filter((r) => r.status !== 'sent')).toEqual([]);
  return rows;
}

const mailAbout = (sink: SmtpSink, ticketId: number) =>
  sink.messages.filter(
    (m) =>
      (m.parsed.subject ?? '').includes(`[hxdesk #${ticketId}]`) ||
      m.parsed.headers.get('x-hxdesk-ticket') === String(ticketId),
  );

async function download(s: TestServer, id: number, token = s.adminToken) {
  const res = await fetch(`${s.url}/attachments/${id}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function addQueue(s: TestServer, name: string, mail_alias?: string): Promise<number> {
  const res = await s.api('POST', '/queues', { body: { name, ...(mail_alias ? { mail_alias } : {}) } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const servers: TestServer[] = [];
const sinks: SmtpSink[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(sinks.map((k) => k.close()));
});
async function server(env: Record<string, string> = {}) {
  const s = await startServer({ MAILGATE_TOKEN: TOKEN, ...env });
  servers.push(s);
  return s;
}

const PLAIN_TEXT =
  'Hello,\n\nthe printer on the 3rd floor (HP LaserJet, room 3.14) jams on every\nsecond page since this morning. We already replaced the paper tray.\n\nThanks,\nAnna';

// ---- the corpus ---------------------------------------------------------------------------

describe('the fixture corpus through POST /mailgate', () => {
  let s: TestServer;
  let sink: SmtpSink;
  let support: number;
  let billing: number;
  let general: number;
  // Set by the first test and used by the replies after it.
  let annaTicket: number;
  let annaCreate: ApiResponse;

  beforeAll(async () => {
    sink = await startSmtpSink();
    sinks.push(sink);
    s = await server({ SMTP_URL: sink.url, OUTBOX_POLL_MS: '50' });
    // Stored lower-cased; matched case-insensitively.
    support = await addQueue(s, 'Support', 'Support@Helpdesk.Example');
    billing = await addQueue(s, 'Billing', 'billing@helpdesk.example');
    general = ((await get(s, '/queues')).queues as any[]).find((q) => q.name === 'General').id;
  });

  it('plain.eml: an unknown sender opens a ticket in the queue of the To alias as a stub requester, and gets the autoreply', async () => {
    const before = await totals(s);
    const raw = fixture('plain.eml');
    annaCreate = await postRaw(s, raw);
    expect(annaCreate.status, annaCreate.text).toBe(201);
    expect(annaCreate.body).toEqual({
      intake_id: expect.any(Number),
      verdict: 'created',
      rule: 'new ticket; queue by recipient support@helpdesk.example',
      ticket_id: expect.any(Number),
      transaction_id: expect.any(Number),
      created: true,
      user_created: true,
      duplicate: false,
    });
    annaTicket = annaCreate.body.ticket_id;

    const anna = await userByEmail(s, 'anna.schmidt@customer.example');
    expect(anna).toMatchObject({
      email: 'anna.schmidt@customer.example',
      name: 'Anna Schmidt',
      role: 'requester',
      disabled: false,
    });
    expect(anna).not.toHaveProperty('password');
    expect(await totals(s)).toEqual({
      tickets: before.tickets + 1,
      intake: before.intake + 1,
      users: before.users + 1,
    });

    const ticket = await ticketOf(s, annaTicket);
    expect(ticket).toMatchObject({
      id: annaTicket,
      queue_id: support,
      subject: 'Printer on the 3rd floor is jamming',
      description: PLAIN_TEXT,
      status: 'new',
      owner_id: null,
      requester_id: anna.id,
    });
    const txs = await transactionsOf(s, annaTicket);
    expect(txs).toHaveLength(1);
    expect(txs[0]).toMatchObject({
      id: annaCreate.body.transaction_id,
      type: 'Create',
      creator_id: anna.id,
      body: PLAIN_TEXT,
      message_id: '<CAFk3m9Q7p1Lx0Yz.4711@mail.customer.example>',
      attachments: [],
    });
    expect(txs[0].scrip_results).toContainEqual(
      expect.objectContaining({ key: 'autoreply_on_create', ok: true, notifications: 1 }),
    );

    const entry = await intakeEntry(s, annaCreate.body.intake_id);
    expect(entry).toMatchObject({
      id: annaCreate.body.intake_id,
      identity: '<CAFk3m9Q7p1Lx0Yz.4711@mail.customer.example>',
      message_id: '<CAFk3m9Q7p1Lx0Yz.4711@mail.customer.example>',
      source: 'mailgate',
      sender: 'anna.schmidt@customer.example',
      subject: 'Printer on the 3rd floor is jamming',
      verdict: 'created',
      rule: 'new ticket; queue by recipient support@helpdesk.example',
      ticket_id: annaTicket,
      transaction_id: annaCreate.body.transaction_id,
      error: null,
      size: Buffer.byteLength(raw),
      raw,
    });

    // The autoreply really goes out: to the sender, tagged, threaded to their message, marked automatic.
    await sink.waitFor(1); // the first mail this server sends
    const [reply] = mailsTo(sink, 'anna.schmidt@customer.example');
    expect(reply.parsed.subject).toContain(`[hxdesk #${annaTicket}]`);
    expect(reply.parsed.inReplyTo).toBe('<CAFk3m9Q7p1Lx0Yz.4711@mail.customer.example>');
    expect(reply.parsed.headers.get('auto-submitted')).toBe('auto-replied');
    const [row] = (await outboxOf(s, annaTicket)).filter((r) => r.kind === 'email');
    expect(row).toMatchObject({
      recipient: 'anna.schmidt@customer.example',
      transaction_id: annaCreate.body.transaction_id,
    });
    expect(reply.parsed.messageId).toBe(row.message_id);
  });

  it('duplicate delivery of plain.eml returns the earlier result with duplicate: true and changes nothing', async () => {
    const before = await totals(s);
    const txBefore = await transactionsOf(s, annaTicket);
    const outboxBefore = await outboxOf(s, annaTicket);
    const again = await postRaw(s, fixture('plain.eml'));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...annaCreate.body, created: false, user_created: false, duplicate: true });
    // The same Message-ID with different bytes (a re-sent copy) is the same message too.
    const resent = await postRaw(
      s,
      withHeaders(fixture('plain.eml'), {
        Received: 'from relay2.customer.example by mail.helpdesk.example; Tue, 14 May 2024 09:20:00 +0200',
      }),
    );
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({ ...annaCreate.body, created: false, user_created: false, duplicate: true });
    expect(await totals(s)).toEqual(before);
    expect(await transactionsOf(s, annaTicket)).toEqual(txBefore);
    expect(await outboxOf(s, annaTicket)).toHaveLength(outboxBefore.length);
  });

  it('reply-by-tag.eml: the subject tag makes a Correspond on the ticket; the sender (other case) is the same user', async () => {
    const anna = await userByEmail(s, 'anna.schmidt@customer.example');
    const before = await totals(s);
    const res = await postRaw(s, fixture('reply-by-tag.eml', { id: annaTicket }));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      intake_id: expect.any(Number),
      verdict: 'appended',
      rule: `ticket by subject tag #${annaTicket}`,
      ticket_id: annaTicket,
      transaction_id: expect.any(Number),
      created: false,
      user_created: false,
      duplicate: false,
    });
    expect(await totals(s)).toEqual({ ...before, intake: before.intake + 1 });
    const last = (await transactionsOf(s, annaTicket)).at(-1);
    expect(last).toMatchObject({
      id: res.body.transaction_id,
      type: 'Correspond',
      creator_id: anna.id,
      message_id: '<CAFk3m9Q7p1Lx0Yz.4712@mail.customer.example>',
      body: 'It jammed again just now, this time on the first page.\n\nAnna\n\nOn 14.05.24 09:12, Customer Support wrote:\n> We have received your request.',
    });
  });

  it('action comment (query for raw mail, field for JSON) makes the reply a Comment instead', async () => {
    const raw = fresh(fixture('reply-by-tag.eml', { id: annaTicket }));
    const viaQuery = await postRaw(s, raw, { query: '?action=comment' });
    expect(viaQuery.status, viaQuery.text).toBe(200);
    expect(viaQuery.body).toMatchObject({
      verdict: 'appended',
      ticket_id: annaTicket,
      created: false,
      duplicate: false,
    });
    const viaJson = await postJson(s, {
      message: fresh(fixture('reply-by-tag.eml', { id: annaTicket })),
      action: 'comment',
    });
    expect(viaJson.status, viaJson.text).toBe(200);
    expect(viaJson.body).toMatchObject({ verdict: 'appended', ticket_id: annaTicket });
    const correspond = await postJson(s, {
      message: fresh(fixture('reply-by-tag.eml', { id: annaTicket })),
      action: 'correspond',
    });
    expect(correspond.status).toBe(200);

    const txs = await transactionsOf(s, annaTicket);
    const byId = (id: number) => txs.find((t) => t.id === id);
    expect(byId(viaQuery.body.transaction_id)).toMatchObject({ type: 'Comment', message_id: messageIdOf(raw) });
    expect(byId(viaJson.body.transaction_id)).toMatchObject({ type: 'Comment' });
    expect(byId(correspond.body.transaction_id)).toMatchObject({ type: 'Correspond' });
  });

  it('reply-by-in-reply-to.eml: no tag, In-Reply-To an inbound message: lands on the same ticket', async () => {
    const inbound = '<CAFk3m9Q7p1Lx0Yz.4711@mail.customer.example>';
    const res = await postRaw(s, fixture('reply-by-in-reply-to.eml', { in_reply_to: inbound, references: inbound }));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      intake_id: expect.any(Number),
      verdict: 'appended',
      rule: `ticket by In-Reply-To ${inbound}`,
      ticket_id: annaTicket,
      transaction_id: expect.any(Number),
      created: false,
      user_created: false,
      duplicate: false,
    });
    const last = (await transactionsOf(s, annaTicket)).at(-1);
    expect(last).toMatchObject({
      id: res.body.transaction_id,
      type: 'Correspond',
      body: 'The technician was here, it works again. Thank you!\n\nAnna',
    });
  });

  it('reply-by-in-reply-to.eml: In-Reply-To our outbound autoreply (its Message-ID from GET /outbox) lands on the same ticket', async () => {
    const autoreply = (await outboxOf(s, annaTicket)).find(
      (r) => r.kind === 'email' && r.recipient === 'anna.schmidt@customer.example',
    );
    expect(autoreply.message_id).toMatch(/^<hxdesk\.\d+\..+@localhost>$/);
    const raw = fresh(
      fixture('reply-by-in-reply-to.eml', { in_reply_to: autoreply.message_id, references: autoreply.message_id }),
    );
    const res = await postRaw(s, raw);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      verdict: 'appended',
      rule: `ticket by In-Reply-To ${autoreply.message_id}`,
      ticket_id: annaTicket,
      created: false,
    });

    // Only References known (a client that replaced In-Reply-To): still the same ticket.
    const refsOnly = fresh(
      fixture('reply-by-in-reply-to.eml', {
        in_reply_to: '<unrelated.4242@elsewhere.example>',
        references: `${autoreply.message_id} <unrelated.4242@elsewhere.example>`,
      }),
    );
    const res2 = await postRaw(s, refsOnly);
    expect(res2.status, res2.text).toBe(200);
    expect(res2.body).toMatchObject({
      verdict: 'appended',
      rule: `ticket by References ${autoreply.message_id}`,
      ticket_id: annaTicket,
    });
  });

  it('the header ladder wins over the subject tag', async () => {
    const other = await postRaw(s, fresh(fixture('latin1.eml'), { From: 'Zoe <zoe@customer.example>' }));
    expect(other.status).toBe(201);
    // Tagged for Zoe's ticket, but In-Reply-To Anna's message: Anna's ticket (the fixed ladder of B7).
    const raw = withHeaders(fresh(fixture('reply-by-tag.eml', { id: other.body.ticket_id })), {
      'In-Reply-To': '<CAFk3m9Q7p1Lx0Yz.4711@mail.customer.example>',
    });
    const res = await postRaw(s, raw);
    expect(res.body).toMatchObject({
      verdict: 'appended',
      ticket_id: annaTicket,
      rule: 'ticket by In-Reply-To <CAFk3m9Q7p1Lx0Yz.4711@mail.customer.example>',
    });
  });

  it('reply-missing-ticket.eml: a tag naming no ticket opens a new ticket with the tag stripped from the subject', async () => {
    expect((await s.api('GET', '/tickets/987654')).status).toBe(404);
    const res = await postRaw(s, fixture('reply-missing-ticket.eml'));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      intake_id: expect.any(Number),
      verdict: 'created',
      rule: 'subject tag #987654 names no ticket: new ticket; queue by recipient support@helpdesk.example',
      ticket_id: expect.any(Number),
      transaction_id: expect.any(Number),
      created: true,
      user_created: true,
      duplicate: false,
    });
    expect(res.body.ticket_id).not.toBe(987654);
    const ticket = await ticketOf(s, res.body.ticket_id);
    expect(ticket).toMatchObject({
      subject: 'Re: VPN drops every 10 minutes',
      queue_id: support,
      description: 'This is still happening after the client update. Can you look again?\n\nErik',
    });
    expect(ticket.subject).not.toContain('hxdesk');
  });

  it('html-only.eml: the HTML body becomes readable text (list, link target), no tags or CSS', async () => {
    const res = await postRaw(s, fixture('html-only.eml'));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ verdict: 'created', created: true, user_created: true });
    const ticket = await ticketOf(s, res.body.ticket_id);
    expect(ticket.subject).toBe('Portal login fails after password reset');
    const d: string = ticket.description;
    expect(d).toContain('Hi team,');
    expect(d).toContain('since the password reset I cannot log in to the customer portal.');
    expect(d).toMatch(
      /1\. Open the portal login page\n\s*2\. Enter the new password\n\s*3\. Click "Sign in" – nothing happens/,
    );
    expect(d).toContain('https://portal.customer.example/reset?token=abc123');
    expect(d).toContain('Bernd Keller\nIT, Customer GmbH');
    expect(d).not.toMatch(/<\/?[a-z][^>]*>/i);
    expect(d).not.toContain('&quot;');
    expect(d).not.toContain('margin');
    expect((await transactionsOf(s, res.body.ticket_id))[0]).toMatchObject({ type: 'Create', body: d });
    expect(await userByEmail(s, 'bernd.keller@customer.example')).toMatchObject({
      name: 'Keller, Bernd',
      role: 'requester',
    });
  });

  it('alternative.eml: of text/plain and HTML alternatives the plain text is kept', async () => {
    const res = await postRaw(s, fixture('alternative.eml'));
    expect(res.status, res.text).toBe(201);
    expect((await ticketOf(s, res.body.ticket_id)).description).toBe(
      'Hello,\n\nmy second monitor flickers when the laptop is docked (plain part).\n\nHanna',
    );
    expect((await transactionsOf(s, res.body.ticket_id))[0].attachments).toEqual([]);
  });

  it('attachments.eml: files are stored, listed on the Create transaction and downloadable byte for byte', async () => {
    const res = await postRaw(s, fixture('attachments.eml'));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      verdict: 'created',
      rule: 'new ticket; queue by recipient billing@helpdesk.example',
    });
    const ticket = await ticketOf(s, res.body.ticket_id);
    expect(ticket).toMatchObject({ queue_id: billing, subject: 'Invoice 2024-0117 and meter readings' });
    expect(ticket.description).toBe(
      'Hello,\n\nplease find attached the invoice we received and our meter readings.\nThe amount on page 1 does not match our contract.\n\nBest regards,\nCarla Rossi',
    );

    const pdf = fs.readFileSync(path.join(FIXTURES, 'invoice-2024-0117.pdf'));
    const note = Buffer.from(
      'Liebe Grüße aus Köln!\nDie Zählerstände stehen unten.\n\nZähler 1: 4711 kWh\nZähler 2: 0815 kWh\n',
      'utf8',
    );
    const [create] = await transactionsOf(s, res.body.ticket_id);
    expect(create.id).toBe(res.body.transaction_id);
    expect(create.attachments).toEqual([
      { id: expect.any(Number), filename: 'invoice-2024-0117.pdf', content_type: 'application/pdf', size: pdf.length },
      { id: expect.any(Number), filename: 'Grüße aus Köln.txt', content_type: 'text/plain', size: note.length },
    ]);

    const gotPdf = await download(s, create.attachments[0].id);
    expect(gotPdf.status).toBe(200);
    expect(gotPdf.headers.get('content-type')).toBe('application/pdf');
    expect(gotPdf.headers.get('content-disposition')).toBe(
      'attachment; filename="invoice-2024-0117.pdf"; filename*=UTF-8\'\'invoice-2024-0117.pdf',
    );
    expect(gotPdf.bytes.equals(pdf)).toBe(true);

    const gotNote = await download(s, create.attachments[1].id);
    expect(gotNote.status).toBe(200);
    expect(gotNote.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(gotNote.headers.get('content-disposition')).toContain(
      "filename*=UTF-8''Gr%C3%BC%C3%9Fe%20aus%20K%C3%B6ln.txt",
    );
    expect(gotNote.bytes.equals(note)).toBe(true);
  });

  it('attachments: the requester who sent them can download them; another requester cannot (404); agents can', async () => {
    const frank = await s.user('requester', 'frank.berger@customer.example');
    const stranger = await s.user('requester', 'stranger@customer.example');
    const agent = await s.user('agent');
    const res = await postRaw(
      s,
      fresh(fixture('attachments.eml'), { From: 'Frank Berger <Frank.Berger@customer.example>' }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ created: true, user_created: false });
    expect(await ticketOf(s, res.body.ticket_id)).toMatchObject({ requester_id: frank.id });
    const [create] = await transactionsOf(s, res.body.ticket_id);
    const id = create.attachments[0].id;
    expect((await download(s, id, frank.token)).status).toBe(200);
    expect((await download(s, id, agent.token)).status).toBe(200);
    const denied = await fetch(`${s.url}/attachments/${id}`, {
      headers: { authorization: `Bearer ${stranger.token}` },
    });
    expect(denied.status).toBe(404);
    expect(((await denied.json()) as any).error.code).toBe('not_found');
    const missing = await s.api('GET', '/attachments/999999');
    expectError(missing, 404, 'not_found');

    // Files on an internal note (action comment) are staff-only, even for the ticket's requester.
    const note = await postRaw(
      s,
      fresh(fixture('attachments.eml'), {
        From: 'Frank Berger <frank.berger@customer.example>',
        Subject: `Re: [hxdesk #${res.body.ticket_id}] the corrected invoice`,
      }),
      { query: '?action=comment' },
    );
    expect(note.status, note.text).toBe(200);
    const comment = (await transactionsOf(s, res.body.ticket_id)).find((t) => t.id === note.body.transaction_id);
    expect(comment).toMatchObject({
      type: 'Comment',
      attachments: [
        expect.objectContaining({ filename: 'invoice-2024-0117.pdf' }),
        expect.objectContaining({ filename: 'Grüße aus Köln.txt' }),
      ],
    });
    expect((await download(s, comment.attachments[0].id, agent.token)).status).toBe(200);
    expect((await download(s, comment.attachments[0].id, frank.token)).status).toBe(404);
    const seenByFrank = await s.api('GET', `/tickets/${res.body.ticket_id}/transactions`, { token: frank.token });
    expect(seenByFrank.status).toBe(200);
    expect(seenByFrank.body.transactions.map((t: { id: number }) => t.id)).not.toContain(note.body.transaction_id);
  });

  it('latin1.eml: ISO-8859-1 quoted-printable body, Q-encoded subject and display name are decoded', async () => {
    const res = await postRaw(s, fixture('latin1.eml'));
    expect(res.status, res.text).toBe(201);
    const ticket = await ticketOf(s, res.body.ticket_id);
    expect(ticket.subject).toBe('Rechnung für März ist fehlerhaft');
    expect(ticket.description).toBe(
      'Sehr geehrte Damen und Herren,\n\ndie Rechnung für März enthält eine Position für Straßenreinigung, die wir nicht beauftragt haben. Bitte prüfen Sie das.\n\nMit freundlichen Grüßen\nJürgen Müller',
    );
    expect(await userByEmail(s, 'juergen.mueller@firma.example')).toMatchObject({
      name: 'Jürgen Müller',
      role: 'requester',
    });
    expect((await intakeEntry(s, res.body.intake_id)).subject).toBe('Rechnung für März ist fehlerhaft');
  });

  it('encoded-subject.eml: a folded RFC 2047 UTF-8 B-encoded subject (with an emoji) is decoded', async () => {
    const res = await postRaw(s, fixture('encoded-subject.eml'));
    expect(res.status, res.text).toBe(201);
    expect((await ticketOf(s, res.body.ticket_id)).subject).toBe(
      'Zugang zum Kundenportal gesperrt – bitte dringend entsperren 🔒',
    );
    expect(await userByEmail(s, 'dmitri.ivanov@customer.example')).toMatchObject({ name: 'Дмитрий Иванов' });
  });

  it('out-of-office.eml: appended to the ticket, no autoreply goes out and a resolved ticket is not reopened', async () => {
    const olga = 'olga.novak@customer.example';
    const opened = await postRaw(s, fresh(fixture('plain.eml'), { From: `Olga Novak <${olga}>` }));
    expect(opened.status).toBe(201);
    const id = opened.body.ticket_id;
    await waitUntil(
      'autoreply to olga',
      async () => mailsTo(sink, olga),
      (m) => m.length === 1,
    );
    const autoreply = (await outboxOf(s, id)).find((r) => r.kind === 'email');

    const resolved = await s.api('PATCH', `/tickets/${id}`, { body: { status: 'resolved' } });
    expect(resolved.status).toBe(200);
    const resolvedAt = resolved.body.ticket.resolved_at;
    expect(resolvedAt).toEqual(expect.any(String));
    await waitUntil(
      'resolve notice to olga',
      async () => mailsTo(sink, olga),
      (m) => m.length === 2,
    );
    const outboxBefore = (await outboxOf(s, id)).length;

    const res = await postRaw(
      s,
      withHeaders(fixture('out-of-office.eml', { in_reply_to: autoreply.message_id }), {
        From: `Olga Novak <${olga}>`,
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      intake_id: expect.any(Number),
      verdict: 'appended',
      rule: `ticket by In-Reply-To ${autoreply.message_id}; automatic mail (Auto-Submitted: auto-replied), no autoreply`,
      ticket_id: id,
      transaction_id: expect.any(Number),
      created: false,
      user_created: false,
      duplicate: false,
    });
    const txs = await transactionsOf(s, id);
    expect(txs.at(-1)).toMatchObject({
      id: res.body.transaction_id,
      type: 'Correspond',
      message_id: '<AM0PR07MB4512.oof.9f3e@mail.customer.example>',
    });
    expect(txs.at(-1).body).toContain('I am out of the office until 27 May');
    expect(txs.filter((t) => t.type === 'Status').map((t) => t.new_value)).toEqual(['resolved']);
    expect(await ticketOf(s, id)).toMatchObject({ status: 'resolved', resolved_at: resolvedAt });

    // Nothing was queued for the out-of-office reply, and once the outbox is drained nothing more reached the sink.
    const rows = await outboxOf(s, id);
    expect(rows).toHaveLength(outboxBefore);
    expect(rows.filter((r) => r.transaction_id === res.body.transaction_id)).toEqual([]);
    await settleOutbox(s);
    expect(mailsTo(sink, olga)).toHaveLength(2);
    expect(mailAbout(sink, id)).toHaveLength(2);
  });

  it('an out-of-office reply to an unknown thread opens a ticket but gets no autoreply', async () => {
    const raw = withHeaders(fixture('out-of-office.eml', { in_reply_to: '<gone.1@elsewhere.example>' }), {
      'Message-ID': newMessageId('oof'),
      From: 'Paul Weber <paul.weber@customer.example>',
    });
    const res = await postRaw(s, raw);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      verdict: 'created',
      created: true,
      user_created: true,
      rule: 'new ticket; queue by recipient support@helpdesk.example; automatic mail (Auto-Submitted: auto-replied), no autoreply',
    });
    const [create] = await transactionsOf(s, res.body.ticket_id);
    expect(create.scrip_results).toContainEqual(
      expect.objectContaining({ key: 'autoreply_on_create', ok: true, notifications: 0 }),
    );
    expect(await outboxOf(s, res.body.ticket_id)).toEqual([]);
    await settleOutbox(s);
    expect(mailsTo(sink, 'paul.weber@customer.example')).toEqual([]);
  });

  it('bounce-dsn.eml: a delivery report is logged as ignored_auto: no ticket, no user, no change', async () => {
    const before = await totals(s);
    const res = await postRaw(s, fixture('bounce-dsn.eml'));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      intake_id: expect.any(Number),
      verdict: 'ignored_auto',
      rule: 'delivery report (multipart/report)',
      ticket_id: null,
      transaction_id: null,
      created: false,
      user_created: false,
      duplicate: false,
    });
    expect(await totals(s)).toEqual({ ...before, intake: before.intake + 1 });
    expect(await userByEmail(s, 'mailer-daemon@mx1.customer.example')).toBeUndefined();
    expect(await intakeEntry(s, res.body.intake_id)).toMatchObject({
      verdict: 'ignored_auto',
      sender: 'mailer-daemon@mx1.customer.example',
      ticket_id: null,
      subject: 'Undelivered Mail Returned to Sender',
    });
    // Delivered again: the earlier result, nothing written.
    const again = await postRaw(s, fixture('bounce-dsn.eml'));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...res.body, duplicate: true });
    expect(await totals(s)).toEqual({ ...before, intake: before.intake + 1 });
  });

  it.each([
    [
      'a mailer daemon without a report',
      { From: 'Mail Delivery Subsystem <MAILER-DAEMON@relay.customer.example>' },
      'sender mailer-daemon@relay.customer.example',
    ],
    ['postmaster', { From: 'postmaster@customer.example' }, 'sender postmaster@customer.example'],
    ['an empty Return-Path', { 'Return-Path': '<>' }, 'empty Return-Path'],
    [
      'our own queue address',
      { From: 'Support <support@helpdesk.example>' },
      'sent from our own address support@helpdesk.example',
    ],
    ['our MAIL_FROM address', { From: 'hxdesk@localhost' }, 'sent from our own address hxdesk@localhost'],
  ])('machine mail from %s is ignored_auto', async (_label, headers, rule) => {
    const before = await totals(s);
    const res = await postRaw(s, fresh(fixture('plain.eml'), headers));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      verdict: 'ignored_auto',
      rule,
      ticket_id: null,
      transaction_id: null,
      created: false,
      user_created: false,
    });
    expect(await totals(s)).toEqual({ ...before, intake: before.intake + 1 });
  });

  it('list-mail.eml: list mail is processed (queue by Delivered-To) but gets no autoreply', async () => {
    const res = await postRaw(s, fixture('list-mail.eml'));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      intake_id: expect.any(Number),
      verdict: 'created',
      rule: 'new ticket; queue by recipient support@helpdesk.example; automatic mail (Precedence: list), no autoreply',
      ticket_id: expect.any(Number),
      transaction_id: expect.any(Number),
      created: true,
      user_created: true,
      duplicate: false,
    });
    expect(await ticketOf(s, res.body.ticket_id)).toMatchObject({
      queue_id: support,
      subject: '[vendor-announce] Scheduled maintenance on 22 May',
    });
    expect(await outboxOf(s, res.body.ticket_id)).toEqual([]);
    await settleOutbox(s);
    expect(mailsTo(sink, 'announce@lists.vendor.example')).toEqual([]);
    expect(mailAbout(sink, res.body.ticket_id)).toEqual([]);
  });

  it.each([
    ['Precedence: bulk', { Precedence: 'bulk' }, 'Precedence: bulk'],
    ['Precedence: junk', { Precedence: 'junk' }, 'Precedence: junk'],
    ['Auto-Submitted: auto-generated', { 'Auto-Submitted': 'auto-generated' }, 'Auto-Submitted: auto-generated'],
    ['X-Autoreply', { 'X-Autoreply': 'yes' }, 'X-Autoreply/X-Autorespond header'],
    ['X-Autorespond', { 'X-Autorespond': 'Thank you for your message' }, 'X-Autoreply/X-Autorespond header'],
    ['List-Id alone', { 'List-Id': '<team.lists.customer.example>' }, 'mailing list (List-Id)'],
  ])('%s: a ticket without autoreply', async (_label, headers, reason) => {
    const res = await postRaw(s, fresh(fixture('plain.eml'), { ...headers, From: 'Robo <robot@customer.example>' }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.rule).toBe(
      `new ticket; queue by recipient support@helpdesk.example; automatic mail (${reason}), no autoreply`,
    );
    expect(await outboxOf(s, res.body.ticket_id)).toEqual([]);
  });

  it('Auto-Submitted: no is a human message: it gets the autoreply', async () => {
    const res = await postRaw(
      s,
      fresh(fixture('plain.eml'), { 'Auto-Submitted': 'no', From: 'Nora <nora@customer.example>' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.rule).toBe('new ticket; queue by recipient support@helpdesk.example');
    await waitUntil(
      'autoreply to nora',
      async () => mailsTo(sink, 'nora@customer.example'),
      (m) => m.length === 1,
    );
  });

  it('no-message-id.eml: processed under a sha256 identity; the same bytes again are a duplicate', async () => {
    const raw = fixture('no-message-id.eml');
    const before = await totals(s);
    const res = await postRaw(s, raw);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ verdict: 'created', created: true, user_created: true, duplicate: false });
    const identity = `sha256:${createHash('sha256').update(Buffer.from(raw)).digest('hex')}`;
    expect(await intakeEntry(s, res.body.intake_id)).toMatchObject({
      identity,
      message_id: null,
      verdict: 'created',
      raw,
    });
    const [create] = await transactionsOf(s, res.body.ticket_id);
    expect(create).toMatchObject({
      type: 'Create',
      message_id: null,
      body: 'Device MFP-2 (2nd floor) reports: black toner below 5 %.',
    });
    expect(await totals(s)).toEqual({
      tickets: before.tickets + 1,
      intake: before.intake + 1,
      users: before.users + 1,
    });

    // As JSON the bytes are the same: still the same message.
    const again = await postJson(s, { message: raw });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...res.body, created: false, user_created: false, duplicate: true });
    expect(await totals(s)).toEqual({
      tickets: before.tickets + 1,
      intake: before.intake + 1,
      users: before.users + 1,
    });

    // Different bytes without a Message-ID are a different message, not stalled behind the first.
    const other = await postRaw(s, raw.replace('below 5 %', 'below 3 %'));
    expect(other.status).toBe(201);
    expect(other.body.ticket_id).not.toBe(res.body.ticket_id);
  });

  it('the same message delivered twice at once is applied once', async () => {
    const raw = fresh(fixture('plain.eml'), { From: 'Ivo <ivo@customer.example>' });
    const before = await totals(s);
    const results = await Promise.all([
      postRaw(s, raw),
      postJson(s, { message: raw }),
      postMultipart(s, { message: raw }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    const created = results.find((r) => r.status === 201)!.body;
    for (const r of results.filter((x) => x.status === 200))
      expect(r.body).toEqual({ ...created, created: false, user_created: false, duplicate: true });
    expect(await totals(s)).toEqual({
      tickets: before.tickets + 1,
      intake: before.intake + 1,
      users: before.users + 1,
    });
    expect(await transactionsOf(s, created.ticket_id)).toHaveLength(1);
  });

  it('no-from.eml: malformed mail is 422 on path message, kept in the intake log as rejected with the reason, once', async () => {
    const before = await totals(s);
    const res = await postRaw(s, fixture('no-from.eml'));
    expectError(res, 422, 'validation_failed', ['message']);
    expect(res.body.error.message).toMatch(
      /^The message has no valid From address \(kept in the intake log as entry (\d+)\)$/,
    );
    const notMail = await postRaw(s, 'this is not an e-mail at all');
    expectError(notMail, 422, 'validation_failed', ['message']);
    // A second delivery of the same bytes is refused again and reuses its entry.
    expectError(await postRaw(s, fixture('no-from.eml')), 422, 'validation_failed', ['message']);
    expect(await totals(s)).toEqual({ ...before, intake: before.intake + 2 });
    const kept = (await get(s, '/mail/intake?verdict=rejected&limit=2')).intake as any[];
    expect(kept.map((r) => r.error)).toEqual([
      'The message has no valid From address',
      'The message has no valid From address',
    ]);
    const entry = await get(s, `/mail/intake/${kept[1].id}`);
    expect(entry.raw).toBe(fixture('no-from.eml'));
    expect(entry).toMatchObject({ verdict: 'rejected', ticket_id: null, sender: null });
    // Replay reads it again: still no sender, still refused, still one entry.
    expectError(await s.api('POST', `/mail/intake/${kept[1].id}/replay`), 422, 'validation_failed', ['message']);
    expect((await totals(s)).intake).toBe(before.intake + 2);
  });

  it('the general queue receives mail addressed to no alias', async () => {
    const res = await postRaw(
      s,
      fresh(fixture('plain.eml'), { To: 'someone@elsewhere.example', 'Delivered-To': null }),
    );
    expect(res.body).toMatchObject({ verdict: 'created', rule: 'new ticket; default queue General' });
    expect((await ticketOf(s, res.body.ticket_id)).queue_id).toBe(general);
  });
});

// ---- queue routing -------------------------------------------------------------------------

describe('queue routing', () => {
  let s: TestServer;
  let support: number;
  let billing: number;
  let general: number;
  const plainTo = (headers: Record<string, string | null>) =>
    fresh(fixture('plain.eml'), { To: 'nobody@elsewhere.example', 'Delivered-To': null, ...headers });
  async function queueOf(res: { status: number; body: any }) {
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (await ticketOf(s, res.body.ticket_id)).queue_id;
  }

  beforeAll(async () => {
    s = await server();
    support = await addQueue(s, 'Support', 'support@helpdesk.example');
    billing = await addQueue(s, 'Billing', 'billing@helpdesk.example');
    await addQueue(s, 'Sales');
    general = ((await get(s, '/queues')).queues as any[]).find((q) => q.name === 'General').id;
  });

  it('opens a ticket in a queue whose custom field is required (mail cannot fill it; the API still must)', async () => {
    const strict = await addQueue(s, 'Strict', 'strict@helpdesk.example');
    const cf = await s.api('POST', '/custom-fields', {
      body: { key: 'contract', name: 'Contract', type: 'text', required: true, queue_ids: [strict] },
    });
    expect(cf.status, cf.text).toBe(201);
    const res = await postRaw(s, plainTo({ To: 'strict@helpdesk.example' }));
    expect(await queueOf(res)).toBe(strict);
    expect((await ticketOf(s, res.body.ticket_id)).custom_fields).toEqual({});
    const api = await s.api('POST', '/tickets', { body: { queue_id: strict, subject: 'Through the API' } });
    expectError(api, 422, 'validation_failed', ['custom_fields.contract']);
  });

  it('matches an alias case-insensitively', async () => {
    const res = await postRaw(s, plainTo({ To: 'Support Desk <SUPPORT@HelpDesk.EXAMPLE>' }));
    expect(await queueOf(res)).toBe(support);
    expect(res.body.rule).toBe('new ticket; queue by recipient support@helpdesk.example');
  });

  it('takes the first recipient that matches, over To, Cc, Delivered-To and X-Original-To in that order', async () => {
    expect(
      await queueOf(
        await postRaw(
          s,
          plainTo({ To: 'a@elsewhere.example, billing@helpdesk.example', Cc: 'support@helpdesk.example' }),
        ),
      ),
    ).toBe(billing);
    expect(
      await queueOf(await postRaw(s, plainTo({ Cc: 'x@elsewhere.example, Billing <billing@helpdesk.example>' }))),
    ).toBe(billing);
    expect(await queueOf(await postRaw(s, plainTo({ 'Delivered-To': 'support@helpdesk.example' })))).toBe(support);
    expect(await queueOf(await postRaw(s, plainTo({ 'X-Original-To': 'billing@helpdesk.example' })))).toBe(billing);
    expect(
      await queueOf(
        await postRaw(s, plainTo({ Cc: 'support@helpdesk.example', 'Delivered-To': 'billing@helpdesk.example' })),
      ),
    ).toBe(support);
    const res = await postRaw(
      s,
      plainTo({ 'Delivered-To': 'billing@helpdesk.example', 'X-Original-To': 'support@helpdesk.example' }),
    );
    expect(await queueOf(res)).toBe(billing);
    expect(res.body.rule).toBe('new ticket; queue by recipient billing@helpdesk.example');
  });

  it('without a matching recipient uses the queue option: alias, name or id, in each body format', async () => {
    const byAlias = await postRaw(s, plainTo({}), { query: '?queue=Billing@Helpdesk.Example' });
    expect(await queueOf(byAlias)).toBe(billing);
    // SPEC D6: the address it was delivered to (its only To) is ours, and the log says so.
    expect(byAlias.body.rule).toBe(
      'new ticket; queue given (Billing@Helpdesk.Example); recipients taken as ours: nobody@elsewhere.example (delivered here)',
    );
    const byName = await postJson(s, { message: plainTo({}), queue: 'Sales' });
    expect(await queueOf(byName)).toBe(((await get(s, '/queues')).queues as any[]).find((q) => q.name === 'Sales').id);
    expect(byName.body.rule).toBe(
      'new ticket; queue given (Sales); recipients taken as ours: nobody@elsewhere.example (delivered here)',
    );
    const byId = await postMultipart(s, { message: plainTo({}), queue: String(support) });
    expect(await queueOf(byId)).toBe(support);
    expect(byId.body.rule).toBe(
      `new ticket; queue given (${support}); recipients taken as ours: nobody@elsewhere.example (delivered here)`,
    );
  });

  it('a matching recipient beats the queue option', async () => {
    const res = await postJson(s, { message: plainTo({ To: 'billing@helpdesk.example' }), queue: 'Sales' });
    expect(await queueOf(res)).toBe(billing);
  });

  it('with neither, the ticket goes to General', async () => {
    const res = await postRaw(s, plainTo({}));
    expect(await queueOf(res)).toBe(general);
    expect(res.body.rule).toBe('new ticket; default queue General');
  });

  it('an unknown queue option is 422 on path queue: no ticket, no stub user, the message kept as rejected; a corrected delivery applies', async () => {
    const before = await totals(s);
    const raws: string[] = [];
    for (const queue of ['no-such-queue@helpdesk.example', 'Nonexistent', '99999']) {
      const raw = fresh(fixture('plain.eml'), {
        To: 'nobody@elsewhere.example',
        'Delivered-To': null,
        From: 'Quentin <quentin@customer.example>',
      });
      raws.push(raw);
      const res = await postJson(s, { message: raw, queue });
      expectError(res, 422, 'validation_failed', ['queue']);
      expect(res.body.error.message).toMatch(
        new RegExp(`^No queue with id, alias or name "${queue}" \\(kept in the intake log as entry \\d+\\)$`),
      );
    }
    expect(await totals(s)).toEqual({ ...before, intake: before.intake + 3 });
    expect(await userByEmail(s, 'quentin@customer.example')).toBeUndefined();
    const kept = (await get(s, '/mail/intake?verdict=rejected&limit=3')).intake as any[];
    expect(kept.map((r) => r.error)).toEqual(
      ['99999', 'Nonexistent', 'no-such-queue@helpdesk.example'].map((q) => `No queue with id, alias or name "${q}"`),
    );
    // The sender's MTA retries with the right queue: not a duplicate of the refusal, it applies.
    const retried = await postJson(s, { message: raws[0], queue: 'General' });
    expect(retried.status, retried.text).toBe(201);
    expect(retried.body).toMatchObject({ verdict: 'created', duplicate: false });
    // An admin replays another refused one: without the wrong option it reaches the default queue.
    const replayed = await s.api('POST', `/mail/intake/${kept[1].id}/replay`);
    expect(replayed.status, replayed.text).toBe(201);
    expect(replayed.body).toMatchObject({ verdict: 'created', rule: 'new ticket; default queue General' });
    expect(await userByEmail(s, 'quentin@customer.example')).toMatchObject({ role: 'requester' });
  });

  it('a reply to an existing ticket ignores the queue option', async () => {
    const first = await postRaw(s, plainTo({ To: 'billing@helpdesk.example' }));
    const reply = await postJson(s, {
      message: fresh(fixture('reply-by-tag.eml', { id: first.body.ticket_id })),
      queue: 'Nonexistent',
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ verdict: 'appended', ticket_id: first.body.ticket_id });
  });
});

// ---- body formats, sizes, errors -----------------------------------------------------------

describe('POST /mailgate body formats and limits', () => {
  let s: TestServer;
  const MAX = 20_000;
  /** A plain message padded to about `bytes` bytes, with a Message-ID of its own. */
  const sized = (bytes: number) => {
    const base = fresh(fixture('no-message-id.eml'));
    const line = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\r\n';
    return base + line.repeat(Math.max(0, Math.ceil((bytes - base.length) / line.length)));
  };

  beforeAll(async () => {
    s = await server({ MAX_MAIL_BYTES: String(MAX) });
    await addQueue(s, 'Support', 'support@helpdesk.example');
  });

  it('accepts the raw message as message/rfc822, text/plain or application/octet-stream', async () => {
    for (const contentType of ['message/rfc822', 'text/plain; charset=utf-8', 'application/octet-stream']) {
      const raw = fresh(fixture('plain.eml'));
      const res = await postRaw(s, raw, { contentType });
      expect(res.status, `${contentType}: ${res.text}`).toBe(201);
      expect(res.body.verdict).toBe('created');
      expect((await intakeEntry(s, res.body.intake_id)).raw).toBe(raw);
    }
  });

  it('accepts JSON { message, queue, action }', async () => {
    const res = await postJson(s, { message: fresh(fixture('latin1.eml')), queue: 'Support' });
    expect(res.status, res.text).toBe(201);
    expect((await ticketOf(s, res.body.ticket_id)).subject).toBe('Rechnung für März ist fehlerhaft');
    const reply = await postJson(s, {
      message: fresh(fixture('reply-by-tag.eml', { id: res.body.ticket_id })),
      action: 'comment',
    });
    expect(reply.status, reply.text).toBe(200);
    expect((await transactionsOf(s, res.body.ticket_id)).at(-1)).toMatchObject({
      id: reply.body.transaction_id,
      type: 'Comment',
    });
  });

  it('accepts multipart/form-data with message (as a field or a file), Mailgun body-mime and SendGrid email', async () => {
    const asField = await postMultipart(s, { message: fresh(fixture('encoded-subject.eml')) });
    expect(asField.status, JSON.stringify(asField.body)).toBe(201);
    expect((await ticketOf(s, asField.body.ticket_id)).subject).toBe(
      'Zugang zum Kundenportal gesperrt – bitte dringend entsperren 🔒',
    );

    const attachmentsRaw = fresh(fixture('attachments.eml'));
    const asFile = await postMultipart(s, { message: new Blob([attachmentsRaw], { type: 'message/rfc822' }) });
    expect(asFile.status, JSON.stringify(asFile.body)).toBe(201);
    const [create] = await transactionsOf(s, asFile.body.ticket_id);
    const pdf = await download(s, create.attachments[0].id);
    expect(pdf.bytes.equals(fs.readFileSync(path.join(FIXTURES, 'invoice-2024-0117.pdf')))).toBe(true);

    const mailgun = await postMultipart(s, {
      recipient: 'support@helpdesk.example',
      sender: 'bernd.keller@customer.example',
      subject: 'Portal login fails after password reset',
      'body-mime': fresh(fixture('html-only.eml')),
      timestamp: '1715673789',
      token: 'abc',
      signature: 'def',
    });
    expect(mailgun.status, JSON.stringify(mailgun.body)).toBe(201);
    expect((await ticketOf(s, mailgun.body.ticket_id)).subject).toBe('Portal login fails after password reset');

    const sendgrid = await postMultipart(s, {
      to: 'support@helpdesk.example',
      from: 'Erik Larsen <erik.larsen@customer.example>',
      envelope: '{"to":["support@helpdesk.example"],"from":"erik.larsen@customer.example"}',
      charsets: '{"to":"UTF-8","from":"UTF-8"}',
      SPF: 'pass',
      email: fresh(fixture('reply-missing-ticket.eml')),
    });
    expect(sendgrid.status, JSON.stringify(sendgrid.body)).toBe(201);
    expect((await ticketOf(s, sendgrid.body.ticket_id)).subject).toBe('Re: VPN drops every 10 minutes');

    const withAction = await postMultipart(s, {
      message: fresh(fixture('reply-by-tag.eml', { id: sendgrid.body.ticket_id })),
      action: 'comment',
    });
    expect(withAction.status).toBe(200);
    expect((await transactionsOf(s, sendgrid.body.ticket_id)).at(-1)).toMatchObject({
      id: withAction.body.transaction_id,
      type: 'Comment',
    });
  });

  it('accepts application/x-www-form-urlencoded with message', async () => {
    const res = await s.api('POST', '/mailgate', {
      token: null,
      headers: { authorization: `Bearer ${TOKEN}` },
      form: { message: fresh(fixture('plain.eml')) },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.verdict).toBe('created');
  });

  it('a missing or empty message is 422 on path message; bad options are 422 on their path; invalid JSON is 400', async () => {
    const before = await totals(s);
    expectError(await postJson(s, { queue: 'Support' }), 422, 'validation_failed', ['message']);
    expectError(await postJson(s, { message: '' }), 422, 'validation_failed', ['message']);
    expectError(await postJson(s, { message: 42 }), 422, 'validation_failed', ['message']);
    expectError(
      await postMultipart(s, { queue: 'Support', recipient: 'support@helpdesk.example' }),
      422,
      'validation_failed',
      ['message'],
    );
    expectError(await postMultipart(s, { message: '' }), 422, 'validation_failed', ['message']);
    expectError(
      await postJson(s, { message: fresh(fixture('plain.eml')), action: 'forward' }),
      422,
      'validation_failed',
      ['action'],
    );
    expectError(await postRaw(s, fresh(fixture('plain.eml')), { query: '?action=delete' }), 422, 'validation_failed', [
      'action',
    ]);
    expectError(await postJson(s, '{"message": "From: a@b.example\r\n'), 400, 'invalid_json');
    expectError(await postJson(s, ''), 400, 'invalid_json');
    expectError(
      await postRaw(s, fresh(fixture('plain.eml')), { contentType: 'application/xml' }),
      415,
      'unsupported_media_type',
    );
    expect(await totals(s)).toEqual(before);
  });

  it('over MAX_MAIL_BYTES is 413 too_large, raw or JSON or form, and nothing is stored; just under is accepted', async () => {
    const before = await totals(s);
    const big = sized(MAX + 5_000);
    expect(Buffer.byteLength(big)).toBeGreaterThan(MAX);
    expectError(await postRaw(s, big), 413, 'too_large');
    // JSON: the envelope is allowed some overhead, the message itself is not.
    expectError(await postJson(s, { message: big }), 413, 'too_large');
    // Far too big: refused while the body streams in.
    expectError(await postJson(s, { message: sized(MAX * 6) }), 413, 'too_large');
    expectError(await postMultipart(s, { message: big }), 413, 'too_large');
    expectError(await postMultipart(s, { email: new Blob([big]) }), 413, 'too_large');
    expect(await totals(s)).toEqual(before);

    const fits = sized(MAX - 2_000);
    expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(MAX);
    const ok = await postRaw(s, fits);
    expect(ok.status, ok.text).toBe(201);
    expect((await intakeEntry(s, ok.body.intake_id)).size).toBe(Buffer.byteLength(fits));
  });

  it('an oversized raw body sent without Content-Length (chunked) is 413 too', async () => {
    const before = await totals(s);
    const chunk = new TextEncoder().encode(sized(MAX + 5_000));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < chunk.length; i += 4096) controller.enqueue(chunk.slice(i, i + 4096));
        controller.close();
      },
    });
    const res = await fetch(`${s.url}/mailgate`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'message/rfc822' },
    } as RequestInit & { duplex: 'half' });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('too_large');
    expect(await totals(s)).toEqual(before);
  });
});

// ---- authentication ------------------------------------------------------------------------

describe('POST /mailgate authentication', () => {
  it('with MAILGATE_TOKEN set: a missing, wrong or non-Bearer token is 401 and nothing is stored', async () => {
    const s = await server();
    const before = await totals(s);
    const raw = fixture('plain.eml');
    expectError(await postRaw(s, raw, { token: null }), 401, 'unauthenticated');
    expectError(await postRaw(s, raw, { token: 'wrong-token-wrong-token-wrong' }), 401, 'unauthenticated');
    expectError(await postRaw(s, raw, { token: `${TOKEN}x` }), 401, 'unauthenticated');
    // A user's API token is not the mail gateway's secret.
    expectError(await postRaw(s, raw, { token: s.adminToken }), 401, 'unauthenticated');
    const basic = await s.api('POST', '/mailgate', {
      token: null,
      headers: {
        authorization: `Basic ${Buffer.from(`mail:${TOKEN}`).toString('base64')}`,
        'content-type': 'message/rfc822',
      },
      body: raw,
    });
    expectError(basic, 401, 'unauthenticated');
    // The token is checked before the body is looked at: broken JSON is 400 with the token, 401 without.
    expectError(await postJson(s, '{ not json'), 400, 'invalid_json');
    const unauthBroken = await s.api('POST', '/mailgate', {
      token: null,
      headers: { 'content-type': 'application/json' },
      body: '{ not json',
    });
    expectError(unauthBroken, 401, 'unauthenticated');
    expect(await totals(s)).toEqual(before);

    const ok = await postRaw(s, raw);
    expect(ok.status).toBe(201);
  });

  it('in production without MAILGATE_TOKEN the gateway answers 503 unavailable', async () => {
    const s = await startServer({ NODE_ENV: 'production' });
    servers.push(s);
    const before = await totals(s);
    expectError(await postRaw(s, fixture('plain.eml'), { token: null }), 503, 'unavailable');
    expectError(await postRaw(s, fixture('plain.eml'), { token: 'anything-at-all-0123456789' }), 503, 'unavailable');
    expect(await totals(s)).toEqual(before);
  });

  it('in production with MAILGATE_TOKEN the gateway works with the token only', async () => {
    const s = await server({ NODE_ENV: 'production' });
    expectError(await postRaw(s, fixture('plain.eml'), { token: null }), 401, 'unauthenticated');
    const ok = await postRaw(s, fixture('plain.eml'));
    expect(ok.status, ok.text).toBe(201);
  });

  it('in development without MAILGATE_TOKEN the gateway is open', async () => {
    const s = await startServer({});
    servers.push(s);
    const ok = await postRaw(s, fixture('plain.eml'), { token: null });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.verdict).toBe('created');
  });
});

// ---- loop brake, intake log and replay -----------------------------------------------------

describe('per-sender brake, intake log and replay', () => {
  let s: TestServer;
  let agent: { id: number; token: string };

  beforeAll(async () => {
    s = await server({ MAIL_SENDER_MAX_PER_HOUR: '3' });
    await addQueue(s, 'Support', 'support@helpdesk.example');
    agent = await s.user('agent');
  });

  it('the 4th distinct message from one sender within the hour is rejected: no ticket, no change', async () => {
    const first = await postRaw(s, fixture('plain.eml'));
    expect(first.status).toBe(201);
    const second = await postRaw(s, fixture('reply-by-tag.eml', { id: first.body.ticket_id }));
    expect(second.body.verdict).toBe('appended');
    const third = await postRaw(s, fresh(fixture('plain.eml'), { Subject: 'Another problem' }));
    expect(third.body.verdict).toBe('created');

    const before = await totals(s);
    const fourthRaw = fresh(fixture('plain.eml'), { Subject: 'Yet another problem' });
    const fourth = await postRaw(s, fourthRaw);
    expect(fourth.status, fourth.text).toBe(200);
    expect(fourth.body).toEqual({
      intake_id: expect.any(Number),
      verdict: 'rejected',
      rule: 'more than 3 messages from anna.schmidt@customer.example in an hour',
      ticket_id: null,
      transaction_id: null,
      created: false,
      user_created: false,
      duplicate: false,
    });
    expect(await totals(s)).toEqual({ ...before, intake: before.intake + 1 });
    // A reply is braked as well: nothing is appended.
    const txBefore = await transactionsOf(s, first.body.ticket_id);
    const fifth = await postRaw(s, fresh(fixture('reply-by-tag.eml', { id: first.body.ticket_id })));
    expect(fifth.body).toMatchObject({ verdict: 'rejected', ticket_id: null });
    expect(await transactionsOf(s, first.body.ticket_id)).toEqual(txBefore);

    // Redelivery of a rejected message is a duplicate of it; other senders are not braked.
    const again = await postRaw(s, fourthRaw);
    expect(again.body).toEqual({ ...fourth.body, duplicate: true });
    const other = await postRaw(s, fixture('latin1.eml'));
    expect(other.status).toBe(201);

    // Replaying the rejected entry runs the processor again: still over the limit, rejected again (a new entry).
    const replay = await s.api('POST', `/mail/intake/${fourth.body.intake_id}/replay`);
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body).toMatchObject({ verdict: 'rejected', ticket_id: null, created: false, duplicate: false });
    expect(replay.body.intake_id).not.toBe(fourth.body.intake_id);
    expect(await intakeEntry(s, replay.body.intake_id)).toMatchObject({
      source: 'replay',
      verdict: 'rejected',
      identity: messageIdOf(fourthRaw),
    });
  });

  it('mail from a disabled sender is rejected; replayed after re-enabling it opens the ticket once', async () => {
    const gina = await s.user('requester', 'gina.fischer@customer.example');
    expect((await s.api('PATCH', `/users/${gina.id}`, { body: { disabled: true } })).status).toBe(200);
    const raw = fresh(fixture('plain.eml'), { From: 'Gina Fischer <gina.fischer@customer.example>' });
    const before = await totals(s);
    const res = await postRaw(s, raw);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      intake_id: expect.any(Number),
      verdict: 'rejected',
      rule: 'sender gina.fischer@customer.example is disabled',
      ticket_id: null,
      transaction_id: null,
      created: false,
      user_created: false,
      duplicate: false,
    });
    expect(await totals(s)).toEqual({ ...before, intake: before.intake + 1 });

    expect((await s.api('PATCH', `/users/${gina.id}`, { body: { disabled: false } })).status).toBe(200);
    const replay = await s.api('POST', `/mail/intake/${res.body.intake_id}/replay`);
    expect(replay.status, replay.text).toBe(201);
    expect(replay.body).toMatchObject({
      verdict: 'created',
      created: true,
      duplicate: false,
      user_created: false,
      ticket_id: expect.any(Number),
    });
    expect(await ticketOf(s, replay.body.ticket_id)).toMatchObject({
      requester_id: gina.id,
      subject: 'Printer on the 3rd floor is jamming',
    });
    expect(await intakeEntry(s, replay.body.intake_id)).toMatchObject({
      source: 'replay',
      verdict: 'created',
      ticket_id: replay.body.ticket_id,
    });

    // Replaying either entry again now finds the created result: a duplicate, nothing new.
    const mid = await totals(s);
    for (const id of [res.body.intake_id, replay.body.intake_id]) {
      const again = await s.api('POST', `/mail/intake/${id}/replay`);
      expect(again.status, again.text).toBe(200);
      expect(again.body).toEqual({ ...replay.body, created: false, user_created: false, duplicate: true });
    }
    // So does a fresh delivery of the same message.
    expect((await postRaw(s, raw)).body).toMatchObject({ duplicate: true, ticket_id: replay.body.ticket_id });
    expect(await totals(s)).toEqual(mid);
  });

  it('replaying an already created message is a duplicate', async () => {
    const created = await postRaw(s, fixture('html-only.eml'));
    expect(created.status).toBe(201);
    const before = await totals(s);
    const replay = await s.api('POST', `/mail/intake/${created.body.intake_id}/replay`);
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body).toEqual({ ...created.body, created: false, user_created: false, duplicate: true });
    expect(await totals(s)).toEqual(before);
  });

  it('GET /mail/intake lists entries newest first with verdict, rule and ticket; filters by verdict', async () => {
    const list = await get(s, '/mail/intake');
    expect(list).toMatchObject({ total: expect.any(Number), limit: 50, offset: 0 });
    expect(list.intake.length).toBe(list.total);
    const ids = list.intake.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    for (const e of list.intake) {
      expect(Object.keys(e).sort()).toEqual(
        [
          'created_at',
          'error',
          'id',
          'identity',
          'message_id',
          'ours',
          'rule',
          'sender',
          'size',
          'source',
          'subject',
          'ticket_id',
          'transaction_id',
          'verdict',
        ].sort(),
      );
      expect(e).not.toHaveProperty('raw');
    }
    expect(list.intake.find((e: any) => e.verdict === 'created')).toMatchObject({
      rule: expect.stringContaining('new ticket'),
      ticket_id: expect.any(Number),
    });
    expect(list.intake.find((e: any) => e.verdict === 'appended')).toMatchObject({
      rule: expect.stringContaining('ticket by subject tag'),
      ticket_id: expect.any(Number),
    });

    const rejected = await get(s, '/mail/intake?verdict=rejected');
    expect(rejected.intake.length).toBeGreaterThanOrEqual(3);
    expect(rejected.intake.every((e: any) => e.verdict === 'rejected' && e.ticket_id === null)).toBe(true);
    expect(rejected.total).toBe(rejected.intake.length);
    const page = await get(s, '/mail/intake?limit=2&offset=1');
    expect(page.intake.map((e: { id: number }) => e.id)).toEqual(ids.slice(1, 3));

    expectError(await s.api('GET', '/mail/intake?verdict=bogus'), 422, 'validation_failed', ['verdict']);
    expectError(await s.api('GET', '/mail/intake?limit=0'), 422, 'validation_failed', ['limit']);
  });

  it('GET /mail/intake/:id includes the raw message', async () => {
    const raw = fresh(fixture('encoded-subject.eml'));
    const res = await postRaw(s, raw);
    const entry = await intakeEntry(s, res.body.intake_id);
    expect(entry).toMatchObject({
      id: res.body.intake_id,
      verdict: 'created',
      source: 'mailgate',
      raw,
      size: Buffer.byteLength(raw),
      ticket_id: res.body.ticket_id,
    });
    expectError(await s.api('GET', '/mail/intake/999999'), 404, 'not_found');
    expectError(await s.api('POST', '/mail/intake/999999/replay'), 404, 'not_found');
  });

  it('the intake log is for admins: agents get 403, anonymous callers 401, the mailgate token is not enough', async () => {
    const { intake } = await get(s, '/mail/intake?limit=1');
    const id = intake[0].id;
    const before = await totals(s);
    expectError(await s.api('GET', '/mail/intake', { token: agent.token }), 403, 'forbidden');
    expectError(await s.api('GET', `/mail/intake/${id}`, { token: agent.token }), 403, 'forbidden');
    expectError(await s.api('POST', `/mail/intake/${id}/replay`, { token: agent.token }), 403, 'forbidden');
    expectError(await s.api('GET', '/mail/intake', { token: null }), 401, 'unauthenticated');
    expectError(await s.api('POST', `/mail/intake/${id}/replay`, { token: null }), 401, 'unauthenticated');
    expectError(await s.api('GET', '/mail/intake', { token: TOKEN }), 401, 'unauthenticated');
    expect(await totals(s)).toEqual(before);
  });
});
