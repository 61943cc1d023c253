import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, describe, expect, it } from 'vitest';
import { poolOf, sqliteOf } from '../src/db/store.js';
import { BEING_APPLIED } from '../src/domain/intakeEntry.js';
import { rawQuery, rawRun, sharedStore } from './helpers/db.js';
import { startDovecot, type Dovecot } from './helpers/dovecot.js';
import { startServer, type TestServer } from './helpers/server.js';
import { killAll, spawnServer } from './helpers/process.js';
import { tokenFor } from './helpers/session.js';
import { testStore } from './helpers/store.js';
import { waitUntil } from './helpers/wait.js';

// IMAP polling (SPEC B7, issue 4 point 6) against a real Dovecot on 127.0.0.1: UIDs and
// UIDVALIDITY are tracked rather than \Seen, a message is flagged \Seen (or moved) only after its
// ticket change has committed, failures stay in the mailbox and are logged without blocking the
// rest, a SIGKILL of the real server mid-batch creates nothing twice, and the poller reconnects
// by itself when Dovecot goes away and comes back.

// Dovecot and the servers restart under the tests: a probe may fail while they are down.
const IMAP = { timeoutMs: 30_000, intervalMs: 50, retryErrors: true };
const dovecots: Dovecot[] = [];
const servers: TestServer[] = [];
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  killAll(children);
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(dovecots.map((d) => d.stop()));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

// ---- helpers ------------------------------------------------------------------------------

/** Polls `probe` until `done` holds for its value; never asserts on elapsed time, only on states. */
async function newDovecot(): Promise<Dovecot> {
  const dc = await startDovecot();
  dovecots.push(dc);
  return dc;
}

/** The real app in-process, polling `dc` only when asked (`pollNow`) or when backing off. */
async function newServer(dc: Dovecot, extra: Record<string, string> = {}): Promise<TestServer> {
  const s = await startServer({ IMAP_URL: dc.url(), IMAP_POLL_SECONDS: '3600', ...extra });
  servers.push(s);
  await s.workers.imap!.pollNow(); // the start-up poll, on a mailbox the test has not filled yet
  return s;
}

interface MailSpec {
  from: string;
  subject: string;
  body?: string;
  /** null: no Message-ID header at all. */
  messageId?: string | null;
  inReplyTo?: string;
  to?: string;
  extraHeaders?: string[];
}

let seq = 0;
function mail(o: MailSpec): string {
  return [
    ...(o.from ? [`From: ${o.from}`] : []),
    `To: ${o.to ?? 'support@example.com'}`,
    `Subject: ${o.subject}`,
    'Date: Tue, 02 Jun 2026 10:00:00 +0000',
    ...(o.messageId === null ? [] : [`Message-ID: ${o.messageId ?? `<imap-test-${++seq}@customer.example>`}`]),
    ...(o.inReplyTo ? [`In-Reply-To: ${o.inReplyTo}`, `References: ${o.inReplyTo}`] : []),
    ...(o.extraHeaders ?? []),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    o.body ?? `Body of ${o.subject}.`,
    '',
  ].join('\r\n');
}

/** A separate IMAP client (as a person's mail program would be), one connection per call. */
async function withImap<T>(dc: Dovecot, fn: (c: ImapFlow) => Promise<T>): Promise<T> {
  const c = new ImapFlow({
    host: dc.host,
    port: dc.port,
    secure: false,
    auth: { user: dc.user, pass: dc.password },
    logger: false,
  });
  try {
    await c.connect();
    return await fn(c);
  } finally {
    if (c.usable) await c.logout().catch(() => c.close());
    else c.close();
  }
}

/** Appends messages in order and returns their UIDs. */
async function append(
  dc: Dovecot,
  messages: (string | { raw: string; flags: string[] })[],
  mailbox = 'INBOX',
): Promise<number[]> {
  return withImap(dc, async (c) => {
    const uids: number[] = [];
    for (const m of messages) {
      const { raw, flags } = typeof m === 'string' ? { raw: m, flags: [] } : m;
      const res = await c.append(mailbox, raw, flags);
      if (!res || !res.uid) throw new Error('APPEND returned no UID');
      uids.push(res.uid);
    }
    return uids;
  });
}

interface BoxMessage {
  uid: number;
  subject: string;
  seen: boolean;
  flags: string[];
}

/** Every message in a mailbox with its flags, in UID order. */
async function listBox(dc: Dovecot, mailbox = 'INBOX'): Promise<BoxMessage[]> {
  return withImap(dc, async (c) => {
    const lock = await c.getMailboxLock(mailbox, { readOnly: true });
    try {
      if (!c.mailbox || !c.mailbox.exists) return [];
      const msgs = await c.fetchAll('1:*', { uid: true, flags: true, envelope: true });
      return msgs
        .map((m) => ({
          uid: m.uid,
          subject: m.envelope?.subject ?? '',
          seen: !!m.flags?.has('\\Seen'),
          flags: [...(m.flags ?? [])].sort(),
        }))
        .sort((a, b) => a.uid - b.uid);
    } finally {
      lock.release();
    }
  });
}

async function uidValidityOf(dc: Dovecot, mailbox = 'INBOX'): Promise<string> {
  return withImap(dc, async (c) => {
    const status = await c.status(mailbox, { uidValidity: true });
    if (!status || status.uidValidity === undefined) throw new Error(`no STATUS for ${mailbox}`);
    return String(status.uidValidity);
  });
}

async function markUnseen(dc: Dovecot, uids: number[]): Promise<void> {
  await withImap(dc, async (c) => {
    const lock = await c.getMailboxLock('INBOX');
    try {
      expect(await c.messageFlagsRemove(uids.join(','), ['\\Seen'], { uid: true })).toBe(true);
    } finally {
      lock.release();
    }
  });
}

const seenBy = (box: BoxMessage[]) => Object.fromEntries(box.map((m) => [m.subject, m.seen]));

interface TicketRow {
  id: number;
  subject: string;
  description: string;
  requester_id: number | null;
  queue_id: number;
}
interface IntakeRow {
  id: number;
  identity: string;
  message_id: string | null;
  source: string;
  sender: string | null;
  subject: string | null;
  verdict: string;
  rule: string | null;
  ticket_id: number | null;
  transaction_id: number | null;
  error: string | null;
}

async function tickets(s: TestServer): Promise<{ tickets: TicketRow[]; total: number }> {
  const res = await s.api('GET', '/tickets?sort=id&limit=500');
  expect(res.status).toBe(200);
  return res.body;
}
async function intake(s: TestServer, query = ''): Promise<{ intake: IntakeRow[]; total: number }> {
  const res = await s.api('GET', `/mail/intake?limit=500${query}`);
  expect(res.status).toBe(200);
  return res.body;
}
const imapStateRows = (s: TestServer) =>
  rawQuery<{ mailbox: string; uid_validity: string; last_uid: number }>(
    s,
    'SELECT mailbox, uid_validity, last_uid FROM imap_state ORDER BY mailbox',
  );

/** A real failure inside the ticket transaction: the database refuses to insert a ticket with this subject. */
async function refuseTicket(s: TestServer, subject: string, message: string): Promise<{ drop(): Promise<void> }> {
  if (testStore() === 'postgres') {
    await rawRun(
      s,
      `CREATE FUNCTION imap_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${message}'; END $$;
      CREATE TRIGGER imap_test_refuse BEFORE INSERT ON tickets FOR EACH ROW WHEN (NEW.subject = '${subject}') EXECUTE FUNCTION imap_test_refuse()`,
    );
    return {
      drop: async () => {
        await rawRun(s, 'DROP TRIGGER imap_test_refuse ON tickets; DROP FUNCTION imap_test_refuse()');
      },
    };
  }
  await rawRun(
    s,
    `CREATE TRIGGER imap_test_refuse BEFORE INSERT ON tickets WHEN NEW.subject = '${subject}'
    BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  );
  return {
    drop: async () => {
      await rawRun(s, 'DROP TRIGGER imap_test_refuse');
    },
  };
}

/**
 * Polls once, with Dovecot killed while the ticket with this subject is being inserted (inside
 * its transaction, before the poller can flag the message). SQLite calls back into this process
 * from a trigger; PostgreSQL's trigger waits on an advisory lock this test holds, the test sees
 * it waiting, kills Dovecot and lets the insert go on.
 */
async function pollCrashingDovecotAt(s: TestServer, dc: Dovecot, subject: string): Promise<void> {
  if (testStore() === 'postgres') {
    const LOCK = 727_001;
    await rawRun(
      s,
      `CREATE FUNCTION imap_test_wait() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock(${LOCK}); RETURN NULL; END $$;
      CREATE TRIGGER imap_test_drop AFTER INSERT ON tickets FOR EACH ROW WHEN (NEW.subject = '${subject}') EXECUTE FUNCTION imap_test_wait()`,
    );
    const holder = await poolOf(s.db).connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [LOCK]);
      const polled = s.workers.imap!.pollNow();
      await waitUntil(
        'the insert waiting in the trigger',
        () => rawQuery(s, "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = ? AND NOT granted", [LOCK]),
        (r) => r.length === 1,
        IMAP,
      );
      await dc.crash();
      await holder.query('SELECT pg_advisory_unlock($1)', [LOCK]);
      await polled;
    } finally {
      holder.release();
      await rawRun(s, 'DROP TRIGGER imap_test_drop ON tickets; DROP FUNCTION imap_test_wait()');
    }
    return;
  }
  sqliteOf(s.db).function('imap_test_crash_dovecot', () => {
    void dc.crash();
    return 1;
  });
  await rawRun(
    s,
    `CREATE TRIGGER imap_test_drop AFTER INSERT ON tickets WHEN NEW.subject = '${subject}'
    BEGIN SELECT imap_test_crash_dovecot(); END`,
  );
  try {
    await s.workers.imap!.pollNow();
  } finally {
    await rawRun(s, 'DROP TRIGGER imap_test_drop');
  }
}

// ---- polling into tickets (in-process server, polls on demand) -------------------------------

describe('IMAP polling against a real Dovecot', () => {
  it('turns each new message into the right ticket or reply, flags it \\Seen after processing, logs it as source imap', async () => {
    const dc = await newDovecot();
    const s = await newServer(dc);
    const queues = await s.api('GET', '/queues');
    const general = queues.body.queues.find((q: { name: string }) => q.name === 'General').id as number;
    // Carol is its requester: mail from someone not on a ticket would be kept as an internal comment (SPEC D0).
    const existing = await s.api('POST', '/tickets', {
      body: {
        queue_id: general,
        subject: 'Existing request',
        description: 'Made in the web UI',
        requesters: ['Carol Client <carol@customer.example>'],
      },
    });
    expect(existing.status).toBe(201);
    const t0 = existing.body.ticket.id as number;

    const uids = await append(dc, [
      mail({
        from: 'Alice Example <alice@customer.example>',
        subject: 'Printer on fire',
        messageId: '<printer-1@customer.example>',
        body: 'The printer in room 4 is on fire.',
      }),
      mail({
        from: 'bob@customer.example',
        subject: 'VPN down',
        messageId: '<vpn-1@customer.example>',
        body: 'No VPN since this morning.',
      }),
      mail({
        from: 'Carol Client <carol@customer.example>',
        subject: `Re: [hxdesk #${t0}] Existing request`,
        messageId: '<carol-1@customer.example>',
        body: 'Any news on this?',
      }),
      // A reply to the first message of this very batch: UIDs are processed in ascending order.
      mail({
        from: 'alice@customer.example',
        subject: 'Re: Printer on fire',
        messageId: '<printer-2@customer.example>',
        inReplyTo: '<printer-1@customer.example>',
        body: 'It is out now.',
      }),
    ]);
    expect(uids).toEqual([...uids].sort((a, b) => a - b));
    const before = await listBox(dc);
    expect(before.map((m) => m.uid)).toEqual(uids);
    expect(before.every((m) => !m.seen)).toBe(true);

    await s.workers.imap!.pollNow();

    const after = await listBox(dc);
    expect(after.map((m) => ({ uid: m.uid, seen: m.seen }))).toEqual(uids.map((uid) => ({ uid, seen: true })));

    const list = await tickets(s);
    expect(list.total).toBe(3);
    expect(list.tickets.map((t) => t.subject)).toEqual(['Existing request', 'Printer on fire', 'VPN down']);
    const [, printer, vpn] = list.tickets;
    expect(printer).toMatchObject({ queue_id: general, description: 'The printer in room 4 is on fire.' });
    expect(vpn).toMatchObject({ queue_id: general, description: 'No VPN since this morning.' });
    const alice = await s.api('GET', `/users/${printer.requester_id}`);
    expect(alice.body).toMatchObject({ email: 'alice@customer.example', name: 'Alice Example', role: 'requester' });
    const bob = await s.api('GET', `/users/${vpn.requester_id}`);
    expect(bob.body).toMatchObject({ email: 'bob@customer.example', role: 'requester' });

    const printerTx = (await s.api('GET', `/tickets/${printer.id}/transactions`)).body.transactions as {
      type: string;
      body: string | null;
      message_id: string | null;
      creator_id: number;
    }[];
    const printerReplies = printerTx.filter((t) => t.type === 'Correspond');
    expect(printerReplies).toHaveLength(1);
    expect(printerReplies[0]).toMatchObject({
      body: 'It is out now.',
      message_id: '<printer-2@customer.example>',
      creator_id: printer.requester_id,
    });
    const t0Tx = (await s.api('GET', `/tickets/${t0}/transactions`)).body.transactions as {
      type: string;
      body: string | null;
      message_id: string | null;
    }[];
    const t0Replies = t0Tx.filter((t) => t.type === 'Correspond');
    expect(t0Replies).toHaveLength(1);
    expect(t0Replies[0]).toMatchObject({ body: 'Any news on this?', message_id: '<carol-1@customer.example>' });

    const log = await intake(s);
    expect(log.total).toBe(4);
    expect(
      [...log.intake].reverse().map((r) => ({
        source: r.source,
        message_id: r.message_id,
        verdict: r.verdict,
        ticket_id: r.ticket_id,
        rule: r.rule,
        error: r.error,
      })),
    ).toEqual([
      {
        source: 'imap',
        message_id: '<printer-1@customer.example>',
        verdict: 'created',
        ticket_id: printer.id,
        rule: 'new ticket; default queue General',
        error: null,
      },
      {
        source: 'imap',
        message_id: '<vpn-1@customer.example>',
        verdict: 'created',
        ticket_id: vpn.id,
        rule: 'new ticket; default queue General',
        error: null,
      },
      {
        source: 'imap',
        message_id: '<carol-1@customer.example>',
        verdict: 'appended',
        ticket_id: t0,
        rule: `ticket by subject tag #${t0}`,
        error: null,
      },
      {
        source: 'imap',
        message_id: '<printer-2@customer.example>',
        verdict: 'appended',
        ticket_id: printer.id,
        rule: 'ticket by In-Reply-To <printer-1@customer.example>',
        error: null,
      },
    ]);

    // The stored state is the mailbox's UIDVALIDITY and the highest UID handled.
    expect(await imapStateRows(s)).toEqual([
      { mailbox: `support@127.0.0.1:${dc.port}/INBOX`, uid_validity: await uidValidityOf(dc), last_uid: uids[3] },
    ]);

    // Polling again finds nothing new.
    await s.workers.imap!.pollNow();
    expect((await tickets(s)).total).toBe(3);
    expect((await intake(s)).total).toBe(4);
  });

  it("keeps the Cc of mail read from the mailbox (SPEC C2): the Cc becomes a watcher, our own mailbox address never, and the Cc's reply-all is their correspondence", async () => {
    const dc = await newDovecot();
    // The mailbox's address is ours: MAIL_ADDRESSES says so (the IMAP user here is not an address).
    const s = await newServer(dc, { MAIL_ADDRESSES: 'support@example.com' });
    await append(dc, [
      mail({
        from: 'Kim Customer <kim@customer.example>',
        subject: 'Server room too hot',
        messageId: '<hot-1@customer.example>',
        extraHeaders: ['Cc: Lee Colleague <lee@customer.example>, support@example.com'],
        body: 'It is 35 degrees in there.',
      }),
      mail({
        from: 'Lee Colleague <lee@customer.example>',
        subject: 'Re: Server room too hot',
        messageId: '<hot-2@customer.example>',
        inReplyTo: '<hot-1@customer.example>',
        extraHeaders: ['Cc: kim@customer.example'],
        body: 'Now 37.',
      }),
    ]);
    await s.workers.imap!.pollNow();
    const [t] = (await tickets(s)).tickets;
    const full = (await s.api('GET', `/tickets/${t.id}`)).body;
    const users = (await s.api('GET', '/users')).body.users as { id: number; email: string }[];
    const id = (email: string) => users.find((u) => u.email === email)?.id;
    expect(full).toMatchObject({
      subject: 'Server room too hot',
      requesters: [id('kim@customer.example')],
      cc: [id('lee@customer.example')],
    });
    expect(id('support@example.com')).toBeUndefined();
    const txs = (await s.api('GET', `/tickets/${t.id}/transactions`)).body.transactions as {
      type: string;
      creator_id: number;
      body: string;
    }[];
    expect(txs.map((x) => [x.type, x.creator_id])).toEqual([
      ['Create', id('kim@customer.example')],
      ['Correspond', id('lee@customer.example')],
    ]);
  });

  it('tracks UIDs, not \\Seen: a message already read is processed; one marked unread again is not processed twice', async () => {
    const dc = await newDovecot();
    const s = await newServer(dc);
    const [readUid, unreadUid] = await append(dc, [
      { raw: mail({ from: 'dave@customer.example', subject: 'Read by a colleague already' }), flags: ['\\Seen'] },
      mail({ from: 'erin@customer.example', subject: 'Still unread' }),
    ]);
    expect(seenBy(await listBox(dc))).toEqual({ 'Read by a colleague already': true, 'Still unread': false });

    await s.workers.imap!.pollNow();
    expect((await tickets(s)).tickets.map((t) => t.subject)).toEqual(['Read by a colleague already', 'Still unread']);
    expect(seenBy(await listBox(dc))).toEqual({ 'Read by a colleague already': true, 'Still unread': true });

    // A mail client marks both unread again: the poller does not look at them again.
    await markUnseen(dc, [readUid, unreadUid]);
    await s.workers.imap!.pollNow();
    expect((await tickets(s)).total).toBe(2);
    expect((await intake(s)).total).toBe(2);
    expect(seenBy(await listBox(dc))).toEqual({ 'Read by a colleague already': false, 'Still unread': false });

    // A new message after them is processed, and only it.
    const [newUid] = await append(dc, [mail({ from: 'frank@customer.example', subject: 'Third one' })]);
    await s.workers.imap!.pollNow();
    expect((await tickets(s)).tickets.map((t) => t.subject)).toEqual([
      'Read by a colleague already',
      'Still unread',
      'Third one',
    ]);
    expect(seenBy(await listBox(dc))).toEqual({
      'Read by a colleague already': false,
      'Still unread': false,
      'Third one': true,
    });
    expect((await intake(s)).intake.map((r) => [r.subject, r.verdict, r.source])).toEqual([
      ['Third one', 'created', 'imap'],
      ['Still unread', 'created', 'imap'],
      ['Read by a colleague already', 'created', 'imap'],
    ]);
    expect((await imapStateRows(s))[0].last_uid).toBe(newUid);
  });

  it('with IMAP_MOVE_TO moves handled messages to that folder, a rejected one too (it is kept in the intake log)', async () => {
    const dc = await newDovecot();
    const s = await newServer(dc, { IMAP_MOVE_TO: 'Archive' });
    expect(await listBox(dc, 'Archive')).toEqual([]);
    const noFrom = mail({ from: '', subject: 'Nobody sent this', messageId: '<nofrom-move@customer.example>' });
    await append(dc, [
      mail({ from: 'gina@customer.example', subject: 'Move me one' }),
      noFrom,
      mail({ from: 'hank@customer.example', subject: 'Move me two' }),
    ]);
    await s.workers.imap!.pollNow();

    expect((await tickets(s)).tickets.map((t) => t.subject)).toEqual(['Move me one', 'Move me two']);
    expect((await listBox(dc, 'Archive')).map((m) => m.subject)).toEqual([
      'Move me one',
      'Nobody sent this',
      'Move me two',
    ]);
    expect(await listBox(dc)).toEqual([]);

    // Later mail is moved as well; nothing earlier is processed again.
    await append(dc, [mail({ from: 'ivy@customer.example', subject: 'Move me three' })]);
    await s.workers.imap!.pollNow();
    expect((await tickets(s)).tickets.map((t) => t.subject)).toEqual(['Move me one', 'Move me two', 'Move me three']);
    expect((await listBox(dc, 'Archive')).map((m) => m.subject)).toEqual([
      'Move me one',
      'Nobody sent this',
      'Move me two',
      'Move me three',
    ]);
    expect(await listBox(dc)).toEqual([]);
    const log = await intake(s);
    expect(log.intake.map((r) => [r.subject, r.verdict])).toEqual([
      ['Move me three', 'created'],
      ['Move me two', 'created'],
      ['', 'rejected'],
      ['Move me one', 'created'],
    ]);
  });

  it('leaves a failing message in place and unseen (logged as failed with its error), flags a rejected one (kept as rejected), and processes the rest', async () => {
    const dc = await newDovecot();
    const s = await newServer(dc);
    // A real failure inside the ticket transaction: the database refuses this one ticket.
    const refusal = await refuseTicket(s, 'Explode please', 'tickets table refused the insert');
    const noFrom = mail({ from: '', subject: 'No sender here', messageId: '<nofrom@customer.example>' });
    const explode = mail({
      from: 'jack@customer.example',
      subject: 'Explode please',
      messageId: '<explode@customer.example>',
    });
    const uids = await append(dc, [
      mail({ from: 'kate@customer.example', subject: 'Before the failures' }),
      noFrom,
      explode,
      mail({ from: 'liam@customer.example', subject: 'After the failures' }),
    ]);
    await s.workers.imap!.pollNow();

    expect((await tickets(s)).tickets.map((t) => t.subject)).toEqual(['Before the failures', 'After the failures']);
    const box = await listBox(dc);
    expect(box.map((m) => ({ uid: m.uid, subject: m.subject, seen: m.seen }))).toEqual([
      { uid: uids[0], subject: 'Before the failures', seen: true },
      { uid: uids[1], subject: 'No sender here', seen: true },
      { uid: uids[2], subject: 'Explode please', seen: false },
      { uid: uids[3], subject: 'After the failures', seen: true },
    ]);

    const failed = await intake(s, '&verdict=failed');
    const rejected = await intake(s, '&verdict=rejected');
    expect(
      [...rejected.intake, ...failed.intake].map((r) => ({
        verdict: r.verdict,
        source: r.source,
        sender: r.sender,
        message_id: r.message_id,
        ticket_id: r.ticket_id,
        error: r.error,
      })),
    ).toEqual([
      {
        verdict: 'rejected',
        source: 'imap',
        sender: null,
        message_id: null,
        ticket_id: null,
        error: 'The message has no valid From address',
      },
      {
        verdict: 'failed',
        source: 'imap',
        sender: 'jack@customer.example',
        message_id: '<explode@customer.example>',
        ticket_id: null,
        error: 'tickets table refused the insert',
      },
    ]);
    // The raw message is kept, byte for byte.
    const [noFromEntry, explodeEntry] = [...rejected.intake, ...failed.intake];
    expect((await s.api('GET', `/mail/intake/${noFromEntry.id}`)).body.raw).toBe(noFrom);
    expect((await s.api('GET', `/mail/intake/${explodeEntry.id}`)).body.raw).toBe(explode);
    expect((await intake(s)).total).toBe(4);

    // Polling again does not hammer the failures (they are in the log for an admin to replay).
    await s.workers.imap!.pollNow();
    expect((await intake(s)).total).toBe(4);
    expect((await tickets(s)).total).toBe(2);

    // Once the cause is gone, the admin replays the entry and the ticket exists exactly once.
    await refusal.drop();
    const replay = await s.api('POST', `/mail/intake/${explodeEntry.id}/replay`);
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({ verdict: 'created', created: true, duplicate: false });
    expect((await tickets(s)).tickets.map((t) => t.subject)).toEqual([
      'Before the failures',
      'After the failures',
      'Explode please',
    ]);
  });

  it('a message that cannot be read in time (and the HTML bomb) is kept once and flagged: never fetched again', async () => {
    const dc = await newDovecot();
    const s = await newServer(dc, { MAIL_PARSE_TIMEOUT_MS: '1' }); // every message takes longer than 1 ms to read
    const bombHtml = Buffer.from('<div>'.repeat(160_000)).toString('base64').replace(/.{76}/g, '$&\r\n');
    const bomb = mail({
      from: 'mona@customer.example',
      subject: 'HTML bomb',
      messageId: '<bomb@customer.example>',
    }).replace(
      'Content-Type: text/plain; charset=utf-8\r\n\r\nBody of HTML bomb.',
      `Content-Type: text/html\r\nContent-Transfer-Encoding: base64\r\n\r\n${bombHtml}`,
    );
    // Long enough that reading it surely takes more than 1 ms, however fast the machine.
    const long = 'A line of text for the reader to take its time over.\r\n'.repeat(30_000);
    const uids = await append(dc, [
      bomb,
      mail({ from: 'ned@customer.example', subject: 'After the bomb', body: long }),
    ]);
    await s.workers.imap!.pollNow();

    const list = (await tickets(s)).tickets;
    expect(list.map((t) => t.subject)).toEqual(['HTML bomb', 'After the bomb']);
    const log = await intake(s);
    expect(
      log.intake.map((r) => [
        r.subject,
        r.verdict,
        /text not read \(reading it took longer than 0\.001 s\)/.test(r.rule ?? ''),
      ]),
    ).toEqual([
      ['After the bomb', 'created', true],
      ['HTML bomb', 'created', true],
    ]);
    expect((await listBox(dc)).map((m) => ({ uid: m.uid, seen: m.seen }))).toEqual(
      uids.map((uid) => ({ uid, seen: true })),
    );

    // Polling again fetches nothing: no second try, no second entry.
    await s.workers.imap!.pollNow();
    await s.workers.imap!.pollNow();
    expect((await intake(s)).total).toBe(2);
    expect((await tickets(s)).total).toBe(2);
  });

  it('does not skip the rest of a batch when the connection drops in the middle of it', async () => {
    const dc = await newDovecot();
    const s = await newServer(dc);
    const uids = await append(dc, [
      mail({ from: 'xena@customer.example', subject: 'Line drops after this one' }),
      mail({ from: 'yuri@customer.example', subject: 'Second in the batch' }),
      mail({ from: 'zoe@customer.example', subject: 'Third in the batch', messageId: null }),
    ]);
    // Dovecot dies the moment the first message's ticket is inserted, before it can be flagged.
    await pollCrashingDovecotAt(s, dc, 'Line drops after this one');
    expect((await tickets(s)).tickets.map((t) => t.subject)).toEqual(['Line drops after this one']);

    await dc.resume();
    await waitUntil(
      'the rest of the batch',
      async () => {
        await s.workers.imap!.pollNow();
        return tickets(s);
      },
      (l) => l.total === 3,
      { ...IMAP, timeoutMs: 10_000 },
    );
    expect((await tickets(s)).tickets.map((t) => t.subject)).toEqual([
      'Line drops after this one',
      'Second in the batch',
      'Third in the batch',
    ]);
    await waitUntil(
      'all three \\Seen',
      () => listBox(dc),
      (b) => b.length === 3 && b.every((m) => m.seen),
      IMAP,
    );
    const log = await intake(s);
    expect(log.intake.map((r) => [r.subject, r.verdict])).toEqual([
      ['Third in the batch', 'created'],
      ['Second in the batch', 'created'],
      ['Line drops after this one', 'created'],
    ]);
    expect((await imapStateRows(s))[0].last_uid).toBe(uids[2]);
  });

  it('rescans after a UIDVALIDITY change and, recognising messages by identity, creates nothing twice', async () => {
    const dc = await newDovecot();
    const s = await newServer(dc);
    const uids = await append(dc, [
      mail({ from: 'mia@customer.example', subject: 'First before the reset' }),
      mail({ from: 'noah@customer.example', subject: 'Second before the reset', messageId: null }), // identity by hash
      mail({ from: 'olga@customer.example', subject: 'Third before the reset' }),
    ]);
    await s.workers.imap!.pollNow();
    expect((await tickets(s)).total).toBe(3);
    const validity = await uidValidityOf(dc);
    const key = `support@127.0.0.1:${dc.port}/INBOX`;
    expect(await imapStateRows(s)).toEqual([{ mailbox: key, uid_validity: validity, last_uid: uids[2] }]);

    // Unflag them so the rescan is visible, and tell the poller the mailbox was recreated.
    await markUnseen(dc, uids);
    expect(await rawRun(s, 'UPDATE imap_state SET uid_validity = ? WHERE mailbox = ?', [`${validity}1`, key])).toBe(1);
    const [fourth] = await append(dc, [mail({ from: 'paul@customer.example', subject: 'After the reset' })]);
    await s.workers.imap!.pollNow();

    // Every message was looked at again (and flagged), but only the new one made a ticket.
    expect((await listBox(dc)).map((m) => [m.subject, m.seen])).toEqual([
      ['First before the reset', true],
      ['Second before the reset', true],
      ['Third before the reset', true],
      ['After the reset', true],
    ]);
    expect((await tickets(s)).tickets.map((t) => t.subject)).toEqual([
      'First before the reset',
      'Second before the reset',
      'Third before the reset',
      'After the reset',
    ]);
    const log = await intake(s);
    expect(log.total).toBe(4);
    expect(log.intake.every((r) => r.verdict === 'created' && r.source === 'imap')).toBe(true);
    expect(await imapStateRows(s)).toEqual([{ mailbox: key, uid_validity: validity, last_uid: fourth }]);
  });

  it('handles a real UIDVALIDITY change by Dovecot (UIDs renumbered from 1) without losing or repeating mail', async () => {
    const dc = await newDovecot();
    const s = await newServer(dc);
    const uids = await append(
      dc,
      ['one', 'two', 'three', 'four', 'five'].map((n, i) =>
        mail({ from: `old${i}@customer.example`, subject: `Old ${n}` }),
      ),
    );
    await s.workers.imap!.pollNow();
    expect((await tickets(s)).total).toBe(5);
    const oldValidity = await uidValidityOf(dc);
    expect((await imapStateRows(s))[0]).toMatchObject({ uid_validity: oldValidity, last_uid: uids[4] });
    // A mail client deletes the first four.
    await withImap(dc, async (c) => {
      const lock = await c.getMailboxLock('INBOX');
      try {
        expect(await c.messageDelete(uids.slice(0, 4).join(','), { uid: true })).toBe(true);
      } finally {
        lock.release();
      }
    });

    // Dovecot loses its UID list (as after a restore or a mailbox recreation): new UIDVALIDITY, UIDs from 1.
    await dc.halt();
    for (const f of fs.readdirSync(dc.maildir))
      if (/^dovecot(-uidlist|\.index)/.test(f)) fs.rmSync(path.join(dc.maildir, f));
    await dc.resume();
    const newValidity = await uidValidityOf(dc);
    expect(newValidity).not.toBe(oldValidity);
    const [added] = await append(dc, [mail({ from: 'tina@customer.example', subject: 'New after renumbering' })]);
    // Its UID is below the old high-water mark: only the UIDVALIDITY check finds it.
    expect(added).toBeLessThan(uids[4]);

    await waitUntil(
      'the new message polled',
      async () => {
        await s.workers.imap!.pollNow();
        return tickets(s);
      },
      (l) => l.total === 6,
      IMAP,
    );
    expect((await tickets(s)).tickets.map((t) => t.subject)).toEqual([
      'Old one',
      'Old two',
      'Old three',
      'Old four',
      'Old five',
      'New after renumbering',
    ]);
    expect((await listBox(dc)).map((m) => [m.uid, m.subject, m.seen])).toEqual([
      [added - 1, 'Old five', true],
      [added, 'New after renumbering', true],
    ]);
    expect((await intake(s)).total).toBe(6);
    expect((await imapStateRows(s))[0]).toMatchObject({ uid_validity: newValidity, last_uid: added });
  });

  it('reconnects by itself with backoff when Dovecot is down at start and comes back', async () => {
    const dc = await newDovecot();
    await dc.halt();
    // Polls only every hour: a message is picked up without pollNow only by the backoff retry.
    const s = await startServer({ IMAP_URL: dc.url(), IMAP_POLL_SECONDS: '3600' });
    servers.push(s);
    await s.workers.imap!.pollNow(); // fails: nothing listens on the port
    expect(await imapStateRows(s)).toEqual([]);
    await dc.resume();
    await append(dc, [mail({ from: 'uma@customer.example', subject: 'Sent while the poller was retrying' })]);
    const list = await waitUntil(
      'ticket from the reconnected poller',
      () => tickets(s),
      (l) => l.total === 1,
      IMAP,
    );
    expect(list.tickets.map((t) => t.subject)).toEqual(['Sent while the poller was retrying']);
    await waitUntil(
      'message flagged',
      () => listBox(dc),
      (b) => b.length === 1 && b[0].seen,
      IMAP,
    );
    expect(await imapStateRows(s)).toHaveLength(1);
  });
});

// ---- the real server process: SIGKILL mid-batch, Dovecot restarts ----------------------------

async function get(base: string, token: string, p: string): Promise<any> {
  const res = await fetch(base + p, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return res.json();
}

describe('the real server process', () => {
  const adminEmail = 'imap-admin@example.com';
  const adminPassword = 'imap-admin-password';

  it('after SIGKILLs mid-batch and restarts, every message becomes exactly one ticket', async () => {
    const dc = await newDovecot();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-imap-crash-'));
    dirs.push(dataDir);
    const store = await sharedStore(dataDir); // the SQLite file in dataDir, or a PostgreSQL database
    const baseEnv = { ...store.env, ADMIN_EMAIL: adminEmail, ADMIN_PASSWORD: adminPassword };

    // First start without IMAP: seed the database and make an API token.
    let proc = await spawnServer(baseEnv);
    const token = await tokenFor(proc.base, adminEmail, adminPassword, 'imap test');
    process.kill(-proc.child.pid!, 'SIGTERM');
    expect((await proc.exit).code).toBe(0);

    // Twenty messages with an attachment each; every fifth has no Message-ID (identity by hash).
    const padding = Buffer.alloc(300_000, 'x').toString('base64').replace(/.{76}/g, '$&\r\n');
    const subjects = Array.from({ length: 20 }, (_, i) => `Crash batch message ${String(i + 1).padStart(2, '0')}`);
    await append(
      dc,
      subjects.map((subject, i) =>
        [
          `From: Customer ${i + 1} <crash${i + 1}@customer.example>`,
          'To: support@example.com',
          `Subject: ${subject}`,
          'Date: Tue, 02 Jun 2026 10:00:00 +0000',
          ...(i % 5 === 4 ? [] : [`Message-ID: <crash-${i + 1}@customer.example>`]),
          'MIME-Version: 1.0',
          'Content-Type: multipart/mixed; boundary="b1"',
          '',
          '--b1',
          'Content-Type: text/plain; charset=utf-8',
          '',
          `Request number ${i + 1}.`,
          '--b1',
          'Content-Type: application/octet-stream',
          'Content-Disposition: attachment; filename="log.bin"',
          'Content-Transfer-Encoding: base64',
          '',
          padding,
          '--b1--',
          '',
        ].join('\r\n'),
      ),
    );

    const imapEnv = { ...baseEnv, IMAP_URL: dc.url(), IMAP_POLL_SECONDS: '0.2' };
    const handled = (out: string) => (out.match(/imap: message handled/g) ?? []).length;

    /**
     * Starts the server with IMAP and SIGKILLs its whole process group (no shutdown handler runs)
     * as soon as it has handled `count` messages by its log — or, with `viaApi`, as soon as
     * GET /tickets shows a ticket, whichever comes first.
     */
    async function startAndKill(count: number, viaApi: boolean) {
      let child: ChildProcess | undefined;
      let killed = false;
      const kill = () => {
        if (child && !killed) {
          killed = true;
          process.kill(-child.pid!, 'SIGKILL');
        }
      };
      const p = await spawnServer(imapEnv, (out) => {
        if (handled(out) >= count) kill();
      });
      child = p.child;
      if (handled(p.output()) >= count) kill();
      await waitUntil(
        `a kill after ${count} handled`,
        async () => {
          if (viaApi && !killed) {
            const res = await fetch(`${p.base}/tickets?limit=1`, {
              headers: { authorization: `Bearer ${token}` },
            }).catch(() => null);
            if (res?.ok && ((await res.json()) as { total: number }).total >= 1) kill();
          }
          return killed;
        },
        (k) => k,
        { ...IMAP, timeoutMs: 60_000 },
      );
      expect(await p.exit).toEqual({ code: null, signal: 'SIGKILL' });
    }

    /** The state a kill left: every message flagged \Seen has its ticket committed, none twice. */
    async function committedAfterKill(): Promise<string[]> {
      const committed = (await store.query<{ subject: string }>('SELECT subject FROM tickets ORDER BY id')).map(
        (r) => r.subject,
      );
      const seen = (await listBox(dc)).filter((m) => m.seen).map((m) => m.subject);
      for (const subject of seen) expect(committed).toContain(subject);
      expect(new Set(committed).size).toBe(committed.length);
      for (const subject of committed) expect(subjects).toContain(subject);
      return committed;
    }

    // Second start: killed as soon as the first ticket exists.
    await startAndKill(1, true);
    const afterFirstKill = await committedAfterKill();
    expect(afterFirstKill.length).toBeGreaterThanOrEqual(1);

    // Third start: killed again after it has handled five more (the first may be one it already had).
    await startAndKill(5, false);
    const afterSecondKill = await committedAfterKill();
    expect(afterSecondKill.length).toBeGreaterThan(afterFirstKill.length);

    // The narrowest window cannot be hit on purpose by a kill: tickets committed, but neither the
    // \Seen flags nor the poller's state written. Put the mailbox and the state there by hand.
    await markUnseen(
      dc,
      (await listBox(dc)).map((m) => m.uid),
    );
    expect(await store.run('UPDATE imap_state SET last_uid = 0')).toBe(1);

    // Last start on the same data directory: the poller picks up where the state says.
    proc = await spawnServer({ ...baseEnv, IMAP_URL: dc.url(), IMAP_POLL_SECONDS: '0.2' });
    await waitUntil(
      'all 20 messages \\Seen',
      () => listBox(dc),
      (b) => b.length === 20 && b.every((m) => m.seen),
      { ...IMAP, timeoutMs: 60_000 },
    );
    const list = await waitUntil(
      '20 tickets',
      () => get(proc.base, token, '/tickets?sort=id&limit=500'),
      (l) => l.total === 20,
      { ...IMAP, timeoutMs: 60_000 },
    );
    expect((list.tickets as TicketRow[]).map((t) => t.subject).sort()).toEqual(subjects);
    expect((list.tickets as TicketRow[]).map((t) => t.description).sort()).toEqual(
      subjects.map((_, i) => `Request number ${i + 1}.`).sort(),
    );
    const requesters = new Set((list.tickets as TicketRow[]).map((t) => t.requester_id));
    expect(requesters.size).toBe(20);

    // A kill between a large message's entry written ahead and its outcome leaves that entry, as
    // decision 061 says: failed, "interrupted while being applied", replayable (a duplicate then).
    const log = await get(proc.base, token, '/mail/intake?limit=500');
    const interrupted = (r: IntakeRow) => r.verdict === 'failed' && r.error === BEING_APPLIED;
    const outcomes = (log.intake as IntakeRow[]).filter((r) => !interrupted(r));
    expect(outcomes).toHaveLength(20);
    expect(outcomes.every((r) => r.verdict === 'created' && r.source === 'imap')).toBe(true);
    expect(new Set(outcomes.map((r) => r.ticket_id)).size).toBe(20);
    const left = (log.intake as IntakeRow[]).filter(interrupted);
    expect(left.length).toBeLessThanOrEqual(2); // one a kill at most
    for (const r of left) expect(outcomes.map((o) => o.identity)).toContain(r.identity);

    // Later polls go on from there: one more message is one more ticket, and nothing else changes.
    await append(dc, [mail({ from: 'late@customer.example', subject: 'After the crash batch' })]);
    const more = await waitUntil(
      '21 tickets',
      () => get(proc.base, token, '/tickets?sort=id&limit=500'),
      (l) => l.total === 21,
      { ...IMAP, timeoutMs: 60_000 },
    );
    expect((more.tickets as TicketRow[]).map((t) => t.subject).sort()).toEqual(
      [...subjects, 'After the crash batch'].sort(),
    );
    expect((await get(proc.base, token, '/mail/intake?limit=500')).total).toBe(21 + left.length);

    process.kill(-proc.child.pid!, 'SIGTERM');
    expect((await proc.exit).code).toBe(0);
  }, 120_000);

  it('reconnects with backoff when Dovecot drops while the server runs, and processes mail sent meanwhile', async () => {
    const dc = await newDovecot();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hxdesk-imap-reconnect-'));
    dirs.push(dataDir);
    await append(dc, [mail({ from: 'vera@customer.example', subject: 'Before Dovecot went away' })]);
    const proc = await spawnServer({
      ...(await sharedStore(dataDir)).env,
      ADMIN_EMAIL: adminEmail,
      ADMIN_PASSWORD: adminPassword,
      IMAP_URL: dc.url(),
      IMAP_POLL_SECONDS: '0.2',
    });
    const token = await tokenFor(proc.base, adminEmail, adminPassword, 'imap test');
    await waitUntil(
      'first ticket',
      () => get(proc.base, token, '/tickets?limit=1'),
      (l) => l.total === 1,
      IMAP,
    );
    await waitUntil(
      'first message \\Seen',
      () => listBox(dc),
      (b) => b.length === 1 && b[0].seen,
      IMAP,
    );

    // No poll failed while Dovecot was up (counted before halting: polls every 0.2 s may fail at once after).
    const failedBefore = (proc.output().match(/imap: poll failed; will reconnect/g) ?? []).length;
    expect(failedBefore).toBe(0);
    await dc.halt();
    await waitUntil(
      'a failed poll',
      () => proc.output(),
      (o) => /imap: poll failed; will reconnect.*"failures":1/.test(o),
      IMAP,
    );

    await dc.resume();
    await append(dc, [mail({ from: 'walt@customer.example', subject: 'Sent while the server was down' })]);
    const list = await waitUntil(
      'second ticket',
      () => get(proc.base, token, '/tickets?sort=id&limit=500'),
      (l) => l.total === 2,
      IMAP,
    );
    expect((list.tickets as TicketRow[]).map((t) => t.subject)).toEqual([
      'Before Dovecot went away',
      'Sent while the server was down',
    ]);
    await waitUntil(
      'both messages \\Seen',
      () => listBox(dc),
      (b) => b.length === 2 && b.every((m) => m.seen),
      IMAP,
    );
    const log = await get(proc.base, token, '/mail/intake?limit=500');
    expect((log.intake as IntakeRow[]).map((r) => [r.subject, r.verdict, r.source])).toEqual([
      ['Sent while the server was down', 'created', 'imap'],
      ['Before Dovecot went away', 'created', 'imap'],
    ]);

    process.kill(-proc.child.pid!, 'SIGTERM');
    expect((await proc.exit).code).toBe(0);
  }, 90_000);
});
