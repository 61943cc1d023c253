import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExim, type Exim } from './helpers/exim.js';
import { ticketsTitled } from './helpers/mail.js';
import { message } from './helpers/mailgate.js';
import { freePort } from './helpers/net.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, killAll, serverEnv, spawnServer, type ServerProcess } from './helpers/process.js';
import { signIn, tokenFor } from './helpers/session.js';

// A real MTA end to end (SPEC C1, decision 015): Debian's Exim, run from its own config, pipes
// mail for helpdesk.test into `hxdesk-mailgate` with the README's transport. hxdesk runs as
// its own process on a fixed loopback port, so it can be down when mail arrives and come back.

const TOKEN = 'mailgate-exim-secret-0123456789';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-exim-data-'));
let port: number;
let exim: Exim;
let hxdesk: ServerProcess | null = null;
let cookie = '';
const children: ServerProcess[] = [];

beforeAll(async () => {
  port = await freePort();
  exim = await startExim({ url: `http://127.0.0.1:${port}`, token: TOKEN });
});
afterAll(() => {
  killAll(children.map((c) => c.child));
  exim?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function startHxdesk() {
  hxdesk = await spawnServer(serverEnv(dataDir, { PORT: String(port), MAILGATE_TOKEN: TOKEN }));
  children.push(hxdesk);
  cookie = await signIn(hxdesk.base, ADMIN_EMAIL, ADMIN_PASSWORD);
}
async function get(p: string) {
  const res = await fetch(`${hxdesk!.base}${p}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}
/** The log lines Exim wrote about one of its message ids. */
const logOf = (id: string) =>
  exim
    .mainlog()
    .split('\n')
    .filter((l) => l.includes(id))
    .join('\n');

describe('Exim → hxdesk-mailgate → hxdesk', () => {
  const whileDown = message({ subject: 'Sent while hxdesk was down' });

  it("hxdesk down: the delivery is deferred (75) and the message stays in Exim's queue", async () => {
    const res = await exim.submit(whileDown.raw, 'ann@customer.test', 'support@helpdesk.test');
    expect(res.code, res.output).toBe(0);
    const queued = await exim.queued();
    expect(queued).toHaveLength(1);
    expect(logOf(queued[0])).toMatch(
      /== support@helpdesk\.test R=hxdesk T=hxdesk_mailgate defer \(0\): Child process of hxdesk_mailgate transport returned 75/,
    );
    expect(exim.mainlog()).toContain('hxdesk-mailgate: cannot reach hxdesk at');
    expect(exim.senderMail()).toBe('');
  });

  it('hxdesk back: a queue run delivers it, and the ticket exists exactly once', async () => {
    await startHxdesk();
    const [id] = await exim.queued();
    const res = await exim.runQueue();
    expect(res.code, res.output).toBe(0);
    expect(await exim.queued()).toEqual([]);
    expect(logOf(id)).toMatch(/=> support <support@helpdesk\.test> R=hxdesk T=hxdesk_mailgate/);
    const tickets = await ticketsTitled(get, whileDown.subject);
    expect(tickets).toHaveLength(1);
    expect(tickets[0].description).toContain('It is on the floor again.');
    // A second queue run finds nothing; the same message submitted again is a duplicate (0): still one ticket.
    await exim.runQueue();
    const again = await exim.submit(whileDown.raw, 'ann@customer.test', 'support@helpdesk.test');
    expect(again.code, again.output).toBe(0);
    expect(await exim.queued()).toEqual([]);
    expect(await ticketsTitled(get, whileDown.subject)).toHaveLength(1);
    const entries = ((await get('/mail/intake?limit=500')).intake as any[]).filter(
      (e) => e.message_id === whileDown.messageId,
    );
    expect(entries).toMatchObject([{ verdict: 'created', ticket_id: tickets[0].id }]);
    expect(exim.senderMail()).toBe('');
  });

  it('hxdesk up: delivered at once (0), the requester is the sender, the headers Exim adds came along', async () => {
    const m = message({ from: 'Bob Customer <bob@customer.test>', to: 'undisclosed-recipients:;' });
    const res = await exim.submit(m.raw, 'bob@customer.test', 'support@helpdesk.test');
    expect(res.code, res.output).toBe(0);
    expect(await exim.queued()).toEqual([]);
    const [ticket] = await ticketsTitled(get, m.subject);
    expect((await get(`/users/${ticket.requester_id}`)).email).toBe('bob@customer.test');
    const entry = ((await get('/mail/intake?limit=500')).intake as any[]).find((e) => e.message_id === m.messageId);
    const raw = (await get(`/mail/intake/${entry.id}`)).raw as string;
    expect(raw).toMatch(/^Return-path: <bob@customer\.test>$/m);
    expect(raw).toMatch(/^X-Original-To: support@helpdesk\.test$/m);
    expect(raw).not.toMatch(/^From /);
  });

  it('--queue: the address Exim delivered to is ours: not a requester or Cc, and no reply is mailed to it (SPEC D6)', async () => {
    const m = message({
      from: 'Eve Customer <eve@customer.test>',
      to: 'help@helpdesk.test',
      headers: { Cc: 'Fay <fay@customer.test>' },
    });
    const res = await exim.submit(m.raw, 'eve@customer.test', 'help@helpdesk.test');
    expect(res.code, res.output).toBe(0);
    expect(await exim.queued()).toEqual([]);
    expect(exim.mainlog()).toMatch(/=> help <help@helpdesk\.test> R=hxdesk_queue T=hxdesk_mailgate_queue/);
    const [ticket] = await ticketsTitled(get, m.subject);
    const users = (await get('/users')).users as { id: number; email: string }[];
    const idOf = (email: string) => users.find((u) => u.email === email)?.id;
    expect(ticket.requesters).toEqual([idOf('eve@customer.test')]);
    expect(ticket.cc).toEqual([idOf('fay@customer.test')]);
    expect(idOf('help@helpdesk.test')).toBeUndefined();
    const entry = ((await get('/mail/intake?limit=500')).intake as any[]).find((e) => e.message_id === m.messageId);
    expect(entry.ours).toEqual(['help@helpdesk.test']);
    expect(entry.rule).toContain('queue given (General)');
    expect(entry.rule).toContain('recipients taken as ours: help@helpdesk.test (delivered here)');
    // A public reply is written to the requester and the Cc: no outbox row goes to our own inbox.
    const token = await tokenFor(hxdesk!.base, ADMIN_EMAIL, ADMIN_PASSWORD);
    const reply = await fetch(`${hxdesk!.base}/tickets/${ticket.id}/comment`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ body: 'We are on it.', internal: false }),
    });
    expect(reply.status, await reply.text()).toBe(201);
    const recipients = ((await get(`/outbox?ticket_id=${ticket.id}&limit=500`)).outbox as any[]).map(
      (o) => o.recipient,
    );
    expect(recipients).toEqual(expect.arrayContaining(['eve@customer.test', 'fay@customer.test']));
    expect(recipients).not.toContain('help@helpdesk.test');
  });

  it("a malformed message is bounced (65): the sender gets hxdesk's reason, nothing is queued, no ticket", async () => {
    const before = (await get('/tickets?limit=1')).total;
    const noFrom = message().raw.replace(/^From: .*\n/m, '');
    const res = await exim.submit(noFrom, 'carol@customer.test', 'support@helpdesk.test');
    expect(res.code, res.output).toBe(0);
    expect(await exim.queued()).toEqual([]);
    expect(exim.mainlog()).toMatch(
      /\*\* support@helpdesk\.test R=hxdesk T=hxdesk_mailgate: Child process of hxdesk_mailgate transport returned 65/,
    );
    const bounce = exim.senderMail();
    expect(bounce).toMatch(/^To: carol@customer\.test$/m);
    expect(bounce).toContain('This is a permanent error');
    expect(bounce).toMatch(
      /hxdesk-mailgate: hxdesk rejected the message \(422 validation_failed: The message has no valid From address \(kept in the intake log as entry \d+\)\)/,
    );
    expect((await get('/tickets?limit=1')).total).toBe(before);
  });

  it("a wrong token is the admin's mistake: deferred (75), never bounced to the sender", async () => {
    const bounces = exim.senderMail();
    const m = message();
    const res = await exim.submit(m.raw, 'dan@customer.test', 'support@misconfigured.test');
    expect(res.code, res.output).toBe(0);
    const queued = await exim.queued();
    expect(queued).toHaveLength(1);
    expect(logOf(queued[0])).toMatch(/defer \(0\): Child process of hxdesk_wrong_token transport returned 75/);
    expect(exim.mainlog()).toMatch(/refused the mail gateway's token \(401 unauthenticated/);
    expect(exim.senderMail()).toBe(bounces);
    expect(await ticketsTitled(get, m.subject)).toEqual([]);
  });
});
