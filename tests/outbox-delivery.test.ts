import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRun, sharedStore, type SharedStore } from './helpers/db.js';
import { startServer, type TestServer } from './helpers/server.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from './helpers/smtp.js';
import { killAll, killGroup, send, spawnServer, type ServerProcess } from './helpers/process.js';
import { tokenFor } from './helpers/session.js';
import { waitUntil } from './helpers/wait.js';

// The durable outbox and its delivery worker (SPEC B6, issue 3 point 4): signed webhooks with
// retries and exponential backoff, a final `failed` state and the admin retry, and delivery that
// survives a SIGKILL of the real server process without losing or duplicating mail.

const SECRET = 'webhook-secret-for-tests-0123456789';

// ---- helpers ------------------------------------------------------------------------------

/** Polls `probe` until `done` holds for its value; never asserts on elapsed time, only on states. */
interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}
interface Receiver {
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 that records every request and answers with `statusFor`. */
async function startReceiver(statusFor: (hit: Hit, hits: Hit[]) => number): Promise<Receiver> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit: Hit = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      };
      hits.push(hit);
      const status = statusFor(hit, hits);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 200 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const hmac = (body: Buffer) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

type Row = {
  id: number;
  kind: string;
  status: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string;
  ticket_id: number;
  transaction_id: number;
  recipient: string;
  message_id: string | null;
  subject: string | null;
};

async function outboxRows(s: TestServer, ticketId: number): Promise<Row[]> {
  const res = await s.api('GET', `/outbox?ticket_id=${ticketId}`);
  expect(res.status).toBe(200);
  return res.body.outbox as Row[];
}

async function webhookRow(s: TestServer, ticketId: number, url?: string): Promise<Row> {
  const rows = (await outboxRows(s, ticketId)).filter(
    (r) => r.kind === 'webhook' && (url === undefined || r.recipient === url),
  );
  expect(rows).toHaveLength(1);
  return rows[0];
}

async function generalQueueId(
  api: (m: string, p: string, b?: unknown) => Promise<{ status: number; body: any }>,
): Promise<number> {
  const res = await api('GET', '/queues');
  expect(res.status).toBe(200);
  return res.body.queues.find((q: { name: string }) => q.name === 'General').id;
}

async function addWebhookScrip(s: TestServer, key: string, url: string) {
  const res = await s.api('POST', '/scrips', {
    body: { key, condition: 'on_create', action: 'notify_webhook', config: { url } },
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({
    key,
    condition: 'on_create',
    action: 'notify_webhook',
    enabled: true,
    config: { url },
  });
  return res.body as { id: number };
}

const servers: TestServer[] = [];
const receivers: Receiver[] = [];
const sinks: SmtpSink[] = [];
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  killAll(children);
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(receivers.map((r) => r.close()));
  await Promise.all(sinks.map((s) => s.close()));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

// ---- webhooks (in-process server, real HTTP receiver) --------------------------------------

describe('webhook delivery', () => {
  it('retries a failing receiver and ends sent after three attempts, signed with HMAC-SHA256', async () => {
    const receiver = await startReceiver((_hit, hits) => (hits.length <= 2 ? 500 : 200));
    receivers.push(receiver);
    const s = await startServer({ WEBHOOK_SECRET: SECRET, OUTBOX_RETRY_BASE_MS: '20', OUTBOX_POLL_MS: '20' });
    servers.push(s);
    const hookUrl = `${receiver.url}/hook`;
    const scrip = await addWebhookScrip(s, 'hook_on_create', hookUrl);

    const queueId = await generalQueueId((m, p) => s.api(m, p));
    const created = await s.api('POST', '/tickets', {
      body: { queue_id: queueId, subject: 'Webhook please', description: 'Body text' },
    });
    expect(created.status).toBe(201);
    const ticket = created.body.ticket;
    expect(created.body.scrip_results).toContainEqual({
      scrip_id: scrip.id,
      key: 'hook_on_create',
      action: 'notify_webhook',
      ok: true,
      notifications: 1,
    });

    const row = await waitUntil(
      'webhook row sent',
      () => webhookRow(s, ticket.id),
      (r) => r.status === 'sent',
    );
    expect(row).toMatchObject({
      kind: 'webhook',
      status: 'sent',
      attempts: 3,
      last_error: null,
      recipient: hookUrl,
      ticket_id: ticket.id,
    });
    const single = await s.api('GET', `/outbox/${row.id}`);
    expect(single.status).toBe(200);
    expect(single.body).toMatchObject({ id: row.id, status: 'sent', attempts: 3, last_error: null });

    const txs = await s.api('GET', `/tickets/${ticket.id}/transactions`);
    expect(txs.status).toBe(200);
    const create = txs.body.transactions.find((t: { type: string }) => t.type === 'Create');
    expect(row.transaction_id).toBe(create.id);

    expect(receiver.hits).toHaveLength(3);
    for (const hit of receiver.hits) {
      expect(hit.method).toBe('POST');
      expect(hit.url).toBe('/hook');
      expect(hit.headers['content-type']).toBe('application/json');
      expect(hit.headers['x-hxdesk-delivery']).toBe(String(row.id));
      expect(hit.headers['x-hxdesk-signature']).toBe(hmac(hit.body));
      expect(hit.headers['x-hxdesk-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      const payload = JSON.parse(hit.body.toString('utf8'));
      expect(payload.ticket).toMatchObject({
        id: ticket.id,
        subject: 'Webhook please',
        description: 'Body text',
        status: 'new',
      });
      expect(payload.transaction).toMatchObject({ id: create.id, type: 'Create' });
      // The whole scope, including the parts a template looks up only when it reads them.
      expect(payload.ticket).toMatchObject({
        custom_fields: {},
        owner: null,
        requester: { id: ticket.requester_id, email: expect.stringContaining('@') },
      });
      expect(Object.keys(payload.ticket)).toEqual(
        expect.arrayContaining(['description', 'custom_fields', 'owner', 'team', 'requester', 'queue', 'url']),
      );
      expect(payload.transaction.creator).toMatchObject({ id: ticket.requester_id });
      expect(payload.scrip).toMatchObject({ id: scrip.id, key: 'hook_on_create' });
      expect(payload.event).toBe('on_create');
    }
    // Every attempt carries the same body (and so the same signature).
    expect(new Set(receiver.hits.map((h) => h.body.toString('utf8'))).size).toBe(1);
    // A signature made with another key does not match.
    expect(receiver.hits[0].headers['x-hxdesk-signature']).not.toBe(
      `sha256=${createHmac('sha256', 'some-other-secret-value').update(receiver.hits[0].body).digest('hex')}`,
    );
  });

  it('without WEBHOOK_SECRET signs with a secret generated once into DATA_DIR/webhook-secret', async () => {
    const receiver = await startReceiver(() => 200);
    receivers.push(receiver);
    const s = await startServer({ OUTBOX_POLL_MS: '20' });
    servers.push(s);
    const secret = fs.readFileSync(path.join(s.dir, 'webhook-secret'), 'utf8').trim();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(fs.statSync(path.join(s.dir, 'webhook-secret')).mode & 0o077).toBe(0);
    await addWebhookScrip(s, 'hook_generated_secret', `${receiver.url}/hook`);
    const t = await s.api('POST', '/tickets', {
      body: { queue_id: await generalQueueId((m, p) => s.api(m, p)), subject: 'Signed anyway' },
    });
    expect(t.status).toBe(201);
    await waitUntil(
      'webhook sent',
      () => webhookRow(s, t.body.ticket.id),
      (r) => r.status === 'sent',
    );
    expect(receiver.hits).toHaveLength(1);
    const expected = `sha256=${createHmac('sha256', secret).update(receiver.hits[0].body).digest('hex')}`;
    expect(receiver.hits[0].headers['x-hxdesk-signature']).toBe(expected);
  });

  it('marks a row failed after OUTBOX_MAX_ATTEMPTS; admins can retry it, others cannot', async () => {
    const receiver = await startReceiver((hit) => (hit.url === '/ok' ? 200 : 500));
    receivers.push(receiver);
    const s = await startServer({
      WEBHOOK_SECRET: SECRET,
      OUTBOX_RETRY_BASE_MS: '20',
      OUTBOX_POLL_MS: '20',
      OUTBOX_MAX_ATTEMPTS: '3',
    });
    servers.push(s);
    const failUrl = `${receiver.url}/fail`;
    const okUrl = `${receiver.url}/ok`;
    await addWebhookScrip(s, 'hook_fail', failUrl);
    await addWebhookScrip(s, 'hook_ok', okUrl);

    const queueId = await generalQueueId((m, p) => s.api(m, p));
    const created = await s.api('POST', '/tickets', { body: { queue_id: queueId, subject: 'Doomed hook' } });
    expect(created.status).toBe(201);
    const ticketId = created.body.ticket.id as number;

    const failed = await waitUntil(
      'webhook row failed',
      () => webhookRow(s, ticketId, failUrl),
      (r) => r.status === 'failed',
    );
    expect(failed).toMatchObject({ status: 'failed', attempts: 3 });
    expect(failed.last_error).toMatch(/500/);
    expect(receiver.hits.filter((h) => h.url === '/fail')).toHaveLength(3);
    const ok = await waitUntil(
      'ok row sent',
      () => webhookRow(s, ticketId, okUrl),
      (r) => r.status === 'sent',
    );
    expect(ok).toMatchObject({ status: 'sent', attempts: 1, last_error: null });

    // An agent may not retry (nor read the outbox).
    const agent = await s.user('agent');
    const forbidden = await s.api('POST', `/outbox/${failed.id}/retry`, { token: agent.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden');
    expect((await s.api('GET', '/outbox', { token: agent.token })).status).toBe(403);
    expect(await webhookRow(s, ticketId, failUrl)).toMatchObject({ status: 'failed', attempts: 3 });

    // A sent row cannot be retried; an unknown id is 404.
    const conflict = await s.api('POST', `/outbox/${ok.id}/retry`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('conflict');
    const missing = await s.api('POST', '/outbox/999999/retry');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    expect((await s.api('GET', '/outbox/999999')).status).toBe(404);

    // The admin retry puts the row back in the queue from attempt one...
    const retried = await s.api('POST', `/outbox/${failed.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: failed.id, status: 'queued', attempts: 0, last_error: null });
    // ...and the worker runs the whole ladder again, ending failed once more.
    const again = await waitUntil(
      'retried row failed again',
      () => webhookRow(s, ticketId, failUrl),
      (r) => r.status === 'failed' && receiver.hits.filter((h) => h.url === '/fail').length === 6,
    );
    expect(again).toMatchObject({ status: 'failed', attempts: 3 });
    expect(again.last_error).toMatch(/500/);
    expect(receiver.hits.filter((h) => h.url === '/ok')).toHaveLength(1);
  });

  it('backs off exponentially: the next attempt is retry_base * 2^(attempts-1) after a failure', async () => {
    const receiver = await startReceiver(() => 500);
    receivers.push(receiver);
    const s = await startServer({ WEBHOOK_SECRET: SECRET, OUTBOX_RETRY_BASE_MS: '60000', OUTBOX_POLL_MS: '20' });
    servers.push(s);
    await addWebhookScrip(s, 'hook_backoff', `${receiver.url}/slow`);
    const queueId = await generalQueueId((m, p) => s.api(m, p));
    const created = await s.api('POST', '/tickets', { body: { queue_id: queueId, subject: 'Back off' } });
    expect(created.status).toBe(201);
    const ticketId = created.body.ticket.id as number;

    const first = await waitUntil(
      'first failure recorded',
      () => webhookRow(s, ticketId),
      (r) => r.status === 'queued' && r.attempts === 1,
    );
    const observed1 = Date.now();
    expect(first.last_error).toMatch(/500/);
    expect(receiver.hits).toHaveLength(1);
    const next1 = Date.parse(first.next_attempt_at);
    // The failure was recorded after the receiver answered, and before we read the row.
    expect(next1).toBeGreaterThanOrEqual(receiver.hits[0].at + 60_000);
    expect(next1).toBeLessThanOrEqual(observed1 + 60_000);

    // Make the row due now (as if a minute had passed) and let it fail once more: the delay doubles.
    expect(
      await rawRun(s, 'UPDATE outbox SET next_attempt_at = ? WHERE id = ?', [new Date().toISOString(), first.id]),
    ).toBe(1);
    const second = await waitUntil(
      'second failure recorded',
      () => webhookRow(s, ticketId),
      (r) => r.status === 'queued' && r.attempts === 2,
    );
    const observed2 = Date.now();
    expect(second.last_error).toMatch(/500/);
    expect(receiver.hits).toHaveLength(2);
    const next2 = Date.parse(second.next_attempt_at);
    expect(next2).toBeGreaterThanOrEqual(receiver.hits[1].at + 120_000);
    expect(next2).toBeLessThanOrEqual(observed2 + 120_000);
  });
});

// ---- kill and restart (the real server process) --------------------------------------------

type Proc = ServerProcess;
/** A row as a worker killed mid-attempt leaves it once its lease has ended: `sending`, its attempt counted. */
const CRASHED_MID_ATTEMPT =
  "UPDATE outbox SET status = 'sending', attempts = 1, claimed_by = 'host:1:dead', claimed_until = '2000-01-01T00:00:00.000Z' WHERE id = ?";

describe('kill and restart of the real server process', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-outbox-'));
  dirs.push(dataDir);
  const adminPassword = 'restart-admin-password';
  const adminEmail = 'boss@example.com';
  // The processes' store: the SQLite file in dataDir, or one PostgreSQL database.
  let store: SharedStore;
  let baseEnv: Record<string, string>;
  beforeAll(async () => {
    store = await sharedStore(dataDir);
    baseEnv = { ...store.env, ADMIN_PASSWORD: adminPassword, ADMIN_EMAIL: adminEmail };
  });
  let proc: Proc;
  let sink: SmtpSink;
  let token = '';
  let requester = { id: 0, email: 'rita@example.com' };
  let queueId = 0;
  const ticketIds: number[] = [];

  const call = (method: string, p: string, body?: unknown) => send(proc.base, method, p, body, { token });
  async function newTicket(subject: string): Promise<number> {
    const res = await call('POST', '/tickets', { queue_id: queueId, subject, requester_id: requester.id });
    expect(res.status).toBe(201);
    expect(res.body.scrip_results).toContainEqual(
      expect.objectContaining({ key: 'autoreply_on_create', ok: true, notifications: 1 }),
    );
    return res.body.ticket.id;
  }
  async function rowsOf(ticketId: number): Promise<Row[]> {
    const res = await call('GET', `/outbox?ticket_id=${ticketId}`);
    expect(res.status).toBe(200);
    return res.body.outbox;
  }
  /** The mail whose subject carries ticket `ticketId`'s tag, in arrival order. */
  const taggedMails = (ticketId: number): ReceivedMail[] =>
    sink.messages.filter((m) => (m.parsed.subject ?? '').includes(`[hxdesk #${ticketId}]`));
  /** The first mail the sink received about ticket `ticketId`, waiting for it. */
  async function firstMailFor(ticketId: number): Promise<ReceivedMail> {
    const [mail] = await waitUntil(
      `mail for ticket ${ticketId}`,
      () => taggedMails(ticketId),
      (ms) => ms.length > 0,
    );
    return mail;
  }

  it('commits mail to the outbox without SMTP, survives SIGKILL, and delivers it exactly once after restart', async () => {
    sink = await startSmtpSink();
    sinks.push(sink);

    // First start: no SMTP_URL, so mail stays queued.
    proc = await spawnServer({ ...baseEnv });
    token = await tokenFor(proc.base, adminEmail, adminPassword, 'outbox test');

    queueId = await generalQueueId(call);
    const u = await call('POST', '/users', { email: requester.email, name: 'Rita Requester', role: 'requester' });
    expect(u.status).toBe(201);
    requester = { id: u.body.id, email: requester.email };

    // Ticket A: its autoreply stays queued. Ticket B: will be caught "mid-attempt".
    ticketIds.push(await newTicket('Crash test A'), await newTicket('Crash test B'));
    for (const id of ticketIds) {
      const rows = await rowsOf(id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        kind: 'email',
        status: 'queued',
        attempts: 0,
        last_error: null,
        recipient: requester.email,
      });
      expect(rows[0].subject).toContain(`[hxdesk #${id}]`);
    }

    // Kill the whole process group: no shutdown handler runs.
    killGroup(proc.child, 'SIGKILL');
    expect(await proc.exit).toEqual({ code: null, signal: 'SIGKILL' });

    // Simulate a crash in the middle of an attempt on B's row: claimed (`sending`, attempt counted)
    // by a worker that died, whose lease has ended (decision 059).
    const [rowB] = await store.query<{ id: number }>("SELECT id FROM outbox WHERE ticket_id = ? AND kind = 'email'", [
      ticketIds[1],
    ]);
    expect(await store.run(CRASHED_MID_ATTEMPT, [rowB.id])).toBe(1);
    const before = await store.query('SELECT ticket_id, status, attempts FROM outbox ORDER BY id');
    expect(before).toEqual([
      { ticket_id: ticketIds[0], status: 'queued', attempts: 0 },
      { ticket_id: ticketIds[1], status: 'sending', attempts: 1 },
    ]);
    expect(sink.messages).toHaveLength(0);

    // Second start on the same data directory, now with SMTP.
    proc = await spawnServer({ ...baseEnv, SMTP_URL: sink.url, OUTBOX_POLL_MS: '20' });
    const mailA = await firstMailFor(ticketIds[0]);
    const mailB = await firstMailFor(ticketIds[1]);
    expect(proc.output()).toMatch(/took over deliveries whose claim ran out.*"count":1/);

    for (const [id, mail] of [
      [ticketIds[0], mailA],
      [ticketIds[1], mailB],
    ] as const) {
      expect(mail.envelope.to).toEqual([requester.email]);
      const [row] = await waitUntil(
        `row of ticket ${id} sent`,
        () => rowsOf(id),
        (rs) => rs[0]?.status === 'sent',
      );
      expect(mail.parsed.messageId).toBe(row.message_id);
      expect(mail.parsed.headers.get('auto-submitted')).toBe('auto-replied');
    }
    expect((await rowsOf(ticketIds[0]))[0]).toMatchObject({ status: 'sent', attempts: 1, last_error: null });
    expect((await rowsOf(ticketIds[1]))[0]).toMatchObject({ status: 'sent', attempts: 2, last_error: null });

    // A later ticket's mail comes after anything the worker might still resend: A and B arrived once.
    const c = await newTicket('Crash test C');
    ticketIds.push(c);
    await firstMailFor(c);
    expect(taggedMails(ticketIds[0])).toHaveLength(1);
    expect(taggedMails(ticketIds[1])).toHaveLength(1);
    expect(taggedMails(c)).toHaveLength(1);
    expect(sink.messages).toHaveLength(3);

    // SIGTERM stops it cleanly.
    killGroup(proc.child, 'SIGTERM');
    expect(await proc.exit).toEqual({ code: 0, signal: null });
  }, 90_000);

  it('a graceful restart after delivery sends nothing again', async () => {
    expect(sink.messages).toHaveLength(3);
    const states = await store.query<{ status: string }>('SELECT status FROM outbox');
    expect(states).toEqual([{ status: 'sent' }, { status: 'sent' }, { status: 'sent' }]);

    proc = await spawnServer({ ...baseEnv, SMTP_URL: sink.url, OUTBOX_POLL_MS: '20' });
    const d = await newTicket('After graceful restart');
    await firstMailFor(d);
    expect(proc.output()).not.toMatch(/took over deliveries/);
    for (const id of ticketIds) expect(taggedMails(id)).toHaveLength(1);
    expect(taggedMails(d)).toHaveLength(1);
    expect(sink.messages).toHaveLength(4);
    const [rowD] = await waitUntil(
      'row of ticket D sent',
      () => rowsOf(d),
      (rs) => rs[0]?.status === 'sent',
    );
    expect(rowD).toMatchObject({ status: 'sent', attempts: 1 });
    for (const id of ticketIds) expect((await rowsOf(id))[0].status).toBe('sent');

    killGroup(proc.child, 'SIGTERM');
    expect(await proc.exit).toEqual({ code: 0, signal: null });
  }, 90_000);
  it('watchers: a public reply to requesters, Cc and AdminCc, killed before delivery, reaches each of them exactly once', async () => {
    // No SMTP: everything the change commits stays queued until the process dies.
    proc = await spawnServer({ ...baseEnv });
    const agent = await call('POST', '/users', { email: 'ada@example.com', name: 'Ada Agent', role: 'agent' });
    expect(agent.status).toBe(201);
    const created = await call('POST', '/tickets', {
      queue_id: queueId,
      subject: 'Crash test watchers',
      requesters: [requester.id, 'Sam Second <sam@example.com>'],
      cc: ['carl@example.com'],
      admin_cc: [agent.body.id],
    });
    expect(created.status).toBe(201);
    const id = created.body.ticket.id as number;
    const reply = await call('POST', `/tickets/${id}/comment`, { body: 'We are on it.', internal: false });
    expect(reply.status).toBe(201);
    const replyRows = (await rowsOf(id)).filter((r) => r.transaction_id === reply.body.transaction.id);
    const everyone = [requester.email, 'sam@example.com', 'carl@example.com', 'ada@example.com'].sort();
    expect(replyRows.map((r) => r.recipient).sort()).toEqual(everyone);
    expect(replyRows.every((r) => r.status === 'queued')).toBe(true);
    const all = await rowsOf(id); // + the autoreply to both requesters and Ada's new-ticket notice
    expect(all).toHaveLength(7);

    killGroup(proc.child, 'SIGKILL');
    expect(await proc.exit).toEqual({ code: null, signal: 'SIGKILL' });
    // One copy caught mid-attempt by the crash.
    expect(await store.run(CRASHED_MID_ATTEMPT, [replyRows[1].id])).toBe(1);

    const before = sink.messages.length;
    proc = await spawnServer({ ...baseEnv, SMTP_URL: sink.url, OUTBOX_POLL_MS: '20' });
    await waitUntil(
      'every copy sent',
      () => rowsOf(id),
      (rs) => rs.length === 7 && rs.every((r) => r.status === 'sent'),
    );
    // A later ticket's mail comes after anything the worker might still resend.
    const later = await newTicket('After the watcher crash');
    await firstMailFor(later);
    const replies = sink.messages.slice(before).filter((m) => (m.parsed.text ?? '').includes('We are on it.'));
    expect(replies.map((m) => m.envelope.to[0]).sort()).toEqual(everyone);
    expect(taggedMails(id)).toHaveLength(7);
    // Copies of one mail to one audience share a Message-ID (decision 022): the autoreply, the
    // new-ticket notice, the reply to the customers and its staff copy.
    expect(new Set(taggedMails(id).map((m) => m.parsed.messageId)).size).toBe(4);

    killGroup(proc.child, 'SIGTERM');
    expect(await proc.exit).toEqual({ code: 0, signal: null });
  }, 90_000);
});
