import { ImapFlow } from 'imapflow';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDovecot, type Dovecot } from './helpers/dovecot.js';
import { pgAvailable, startPostgres, type PgCluster } from './helpers/postgres.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, killAll, processScope, type ServerProcess, send } from './helpers/process.js';
import { tokenFor } from './helpers/session.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from './helpers/smtp.js';
import { waitUntil } from './helpers/wait.js';

// SPEC C6: several hxdesk processes on one PostgreSQL database, no other shared component
// (decision 030). Two real server processes (the compiled server) on one migrated database of a
// throwaway cluster, one SMTP sink that both deliver to, one Dovecot mailbox both are told to
// poll. Every unit of work is SERIALIZABLE (run again on a conflict), outbox rows are claimed
// with FOR UPDATE SKIP LOCKED and marked with their worker, a dead worker's rows are put back by
// a survivor, one process polls IMAP under an advisory lock. Counted at the sink: what it
// accepted (answered 250), nothing deduplicated.

const pgTest = describe.skipIf(!pgAvailable());
// Whole processes start, crash and take over: their waits are long.
const PROCS = { timeoutMs: 60_000, intervalMs: 50 };
const LOGIN_LIMIT = 4;
const LEASE_MS = 5000;
const MAILGATE_TOKEN = 'mailgate-secret-for-both';
const { children, dataDir, serve } = processScope('multi');

/** Polls `probe` until `done` holds; never asserts on elapsed time, only on states. */

/** Runs `jobs` with at most `width` in flight. */
async function inParallel<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

/** The ticket number a mail's subject carries (`[hxdesk #n]`), or 0. */
const subjectTicket = (m: ReceivedMail) => Number(/\[hxdesk #(\d+)\]/.exec(m.parsed.subject ?? '')?.[1] ?? 0);
/** `recipient ticket` of every accepted message, with how often each arrived. */
function deliveries(messages: ReceivedMail[]): Map<string, number> {
  const n = new Map<string, number>();
  for (const m of messages)
    for (const to of m.envelope.to) {
      const k = `${to.toLowerCase()} #${subjectTicket(m)}`;
      n.set(k, (n.get(k) ?? 0) + 1);
    }
  return n;
}

pgTest('two server processes on one PostgreSQL database', () => {
  let cluster: PgCluster;
  let url = '';
  let sql: pg.Pool;
  let sink: SmtpSink;
  let dovecot: Dovecot;
  let a: ServerProcess;
  let b: ServerProcess;
  let token = '';
  let queueId = 0;

  /** One more process on the shared database (a data directory of its own), mailing to the one sink, polling the one mailbox. */
  const serveShared = () =>
    serve(
      { DATABASE_URL: url, DATA_DIR: dataDir() },
      {
        SMTP_URL: sink.url,
        MAIL_FROM: 'support@example.com',
        WEBHOOK_SECRET: 'one-secret-for-every-process',
        OUTBOX_POLL_MS: '200',
        OUTBOX_RETRY_BASE_MS: '200',
        // Claims last 5 s unless renewed (a live worker renews them every third of that): a dead
        // process's claims are taken over within seconds, not the two minutes of the default.
        OUTBOX_LEASE_MS: String(LEASE_MS),
        LOGIN_MAX_FAILURES: String(LOGIN_LIMIT),
        LOGIN_MAX_ATTEMPTS_PER_IP: '100000',
        IMAP_URL: dovecot.url(),
        IMAP_POLL_SECONDS: '0.2',
        MAILGATE_TOKEN,
      },
    );
  const kill9 = async (s: ServerProcess) => {
    process.kill(-s.child.pid!, 'SIGKILL');
    await s.exit;
  };

  /** Outbox rows by status, read from the database itself. */
  async function statuses(): Promise<Record<string, number>> {
    const { rows } = await sql.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM outbox WHERE kind = 'email' GROUP BY status",
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }
  /** `recipient #ticket` of every e-mail row in the outbox. */
  async function expectedDeliveries(): Promise<string[]> {
    const { rows } = await sql.query<{ k: string }>(
      "SELECT lower(recipient) || ' #' || ticket_id AS k FROM outbox WHERE kind = 'email' ORDER BY k",
    );
    return rows.map((r) => r.k);
  }
  /** Every row sent, and the sink holds exactly one accepted copy of each row's mail. */
  async function expectEachDeliveredOnce(): Promise<void> {
    await waitUntil('every notification sent', statuses, (s) => Object.keys(s).every((k) => k === 'sent'), {
      ...PROCS,
      timeoutMs: 120_000,
    });
    const expected = await expectedDeliveries();
    const got = deliveries(sink.messages);
    const doubled = [...got].filter(([, n]) => n > 1);
    expect(doubled).toEqual([]);
    expect([...got.keys()].sort()).toEqual(expected);
    expect(sink.messages).toHaveLength(expected.length);
  }

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createMigratedDatabase();
    sql = new pg.Pool({ connectionString: url, max: 2 });
    sink = await startSmtpSink();
    dovecot = await startDovecot();
    // Both start at once on the empty database: both try to seed it, one does.
    [a, b] = await Promise.all([serveShared(), serveShared()]);
    token = await tokenFor(a.base, ADMIN_EMAIL, ADMIN_PASSWORD, 'multi-process');
    const queues = await send(b.base, 'GET', '/queues', undefined, { token });
    expect(queues.status).toBe(200);
    queueId = (queues.body.queues ?? queues.body).find((q: { name: string }) => q.name === 'General').id;
  }, 120_000);

  afterAll(async () => {
    killAll(children.map((c) => c.child)); // their pooled SMTP sessions would keep the sink open
    await Promise.all(children.map((c) => c.exit));
    await sql?.end();
    await sink?.close();
    await dovecot?.stop();
    await cluster?.stop();
  });

  it('both started on the empty database: one administrator, one of each seeded queue', async () => {
    const { rows: admins } = await sql.query('SELECT id FROM users WHERE lower(email) = lower($1)', [ADMIN_EMAIL]);
    expect(admins).toHaveLength(1);
    const { rows: queues } = await sql.query<{ name: string; n: number }>(
      'SELECT name, count(*)::int AS n FROM queues GROUP BY name',
    );
    expect(queues.length).toBeGreaterThan(0);
    expect(queues.filter((q) => q.n !== 1)).toEqual([]);
  });

  it('200 tickets created across both processes at once: every notification delivered exactly once', async () => {
    // Requesters by address, ten of them new: both processes create the same people at once
    // ("no user with this address: create one" — a unit of work that must run as if alone).
    const jobs = Array.from({ length: 200 }, (_, i) => async () => {
      const base = i % 2 === 0 ? a.base : b.base;
      const res = await send(
        base,
        'POST',
        '/tickets',
        {
          queue_id: queueId,
          subject: `Burst ${i}`,
          requesters: [`customer${i % 10}@customers.example`],
        },
        { token },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.ticket.id as number;
    });
    const ids = await inParallel(jobs, 8);
    expect(new Set(ids).size).toBe(200);
    const { rows: people } = await sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM users WHERE email LIKE '%@customers.example'",
    );
    expect(people[0].n).toBe(10);
    const expected = await expectedDeliveries();
    expect(expected.length).toBeGreaterThanOrEqual(200);
    await expectEachDeliveredOnce();
    expect(a.output() + b.output()).not.toMatch(/outbox: (worker error|delivery failed)/);
  }, 180_000);

  it('one ticket changed from both processes at once: every change recorded against the value it replaced', async () => {
    const t = await send(
      a.base,
      'POST',
      '/tickets',
      { queue_id: queueId, subject: 'Contended', requesters: ['contended@customers.example'], priority: 0 },
      { token },
    );
    expect(t.status).toBe(201);
    const id = t.body.ticket.id as number;
    // 40 changes of one field, alternating between the processes, 8 in flight: each reads the
    // ticket, decides, and records "old → new" in one unit of work. Run as if alone, the recorded
    // history is one chain; two interleaved would both record the same old value (a lost update).
    const answers = await inParallel(
      Array.from(
        { length: 40 },
        (_, i) => () => send(i % 2 === 0 ? a.base : b.base, 'PATCH', `/tickets/${id}`, { priority: i + 1 }, { token }),
      ),
      8,
    );
    expect(answers.map((r) => r.status)).toEqual(Array(40).fill(200));
    const { rows } = await sql.query<{ old_value: string | null; new_value: string }>(
      "SELECT old_value, new_value FROM transactions WHERE ticket_id = $1 AND type = 'SetPriority' ORDER BY id",
      [id],
    );
    expect(rows).toHaveLength(40);
    let value = '0';
    for (const r of rows) {
      expect(r.old_value).toBe(value);
      value = r.new_value;
    }
    const {
      rows: [ticket],
    } = await sql.query<{ priority: number }>('SELECT priority FROM tickets WHERE id = $1', [id]);
    expect(String(ticket.priority)).toBe(value);
  }, 120_000);

  it('the same message delivered to both processes at once is applied once', async () => {
    // Ten messages, each posted to both processes' mail gateway at the same moment; all from one
    // new sender, so both also try to create that person at once.
    const results = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const raw = [
          'From: Twice <twice@customers.example>',
          'To: support@example.com',
          `Subject: Delivered twice ${i}`,
          `Message-ID: <twice-${i}@customers.example>`,
          'Date: Tue, 02 Jun 2026 10:00:00 +0000',
          '',
          `Message ${i}.`,
          '',
        ].join('\r\n');
        const post = (base: string) =>
          fetch(`${base}/mailgate`, {
            method: 'POST',
            headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${MAILGATE_TOKEN}` },
            body: raw,
          }).then(async (r) => ({
            status: r.status,
            body: (await r.json()) as { ticket_id: number; duplicate: boolean },
          }));
        return Promise.all([post(a.base), post(b.base)]);
      }),
    );
    for (const pair of results) {
      expect(pair.map((r) => r.status).sort(), JSON.stringify(pair)).toEqual([200, 201]);
      expect(pair[0].body.ticket_id).toBe(pair[1].body.ticket_id);
      expect(pair.filter((r) => r.body.duplicate)).toHaveLength(1);
    }
    const { rows: tickets } = await sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM tickets WHERE subject LIKE 'Delivered twice %'",
    );
    expect(tickets[0].n).toBe(10);
    const { rows: intake } = await sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM mail_intake WHERE message_id LIKE '<twice-%'",
    );
    expect(intake[0].n).toBe(10);
    const { rows: senders } = await sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM users WHERE email = 'twice@customers.example'",
    );
    expect(senders[0].n).toBe(1);
    // Each new ticket's autoreply, once (a duplicate delivery notifies nobody).
    await expectEachDeliveredOnce();
  }, 60_000);

  it('kill -9 of a process holding outbox claims: the other delivers each of them once, after the lease', async () => {
    await expectEachDeliveredOnce(); // nothing from earlier tests still on its way
    const before = sink.messages.length;
    sink.hold();
    // One ticket with twelve requesters: twelve rows committed at once and claimed in batches
    // (usually all by the process that wrote them: its write kicks its worker).
    const res = await send(
      a.base,
      'POST',
      '/tickets',
      {
        queue_id: queueId,
        subject: 'Burst to many',
        requesters: Array.from({ length: 12 }, (_, i) => `many${i}@customers.example`),
      },
      { token },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // Claimed rows name their worker's pid. Every process with claimed rows is blocked in its
    // first message, whose data is at the sink, unanswered.
    const claimedByPid = async () => {
      const { rows } = await sql.query<{ owner: string }>(
        "SELECT claimed_by AS owner FROM outbox WHERE status = 'sending'",
      );
      const n = new Map<number, number>();
      for (const r of rows) {
        const pid = Number(r.owner.split(':').at(-2));
        n.set(pid, (n.get(pid) ?? 0) + 1);
      }
      return n;
    };
    const claimed = await waitUntil(
      'a process mid-delivery',
      async () => ({ byPid: [...(await claimedByPid())], held: sink.held() }),
      (s) => s.byPid.length > 0 && s.held === s.byPid.length && s.byPid.some(([, n]) => n >= 2),
      PROCS,
    );
    const [victimPid] = claimed.byPid.sort((x, y) => y[1] - x[1])[0];
    const [victim, survivor] = victimPid === a.child.pid ? [a, b] : [b, a];
    expect(victim.child.pid).toBe(victimPid);
    /** The victim's claims: row id → end of its lease. */
    const victimClaims = async () => {
      const { rows } = await sql.query<{ id: number; until: string }>(
        "SELECT id, claimed_until AS until FROM outbox WHERE status = 'sending' AND claimed_by LIKE $1 ORDER BY id",
        [`%:${victimPid}:%`],
      );
      return rows;
    };
    const first = await victimClaims();
    expect(first.length).toBeGreaterThanOrEqual(2);
    const firstEnd = first.map((r) => r.until).sort()[0];
    // Its attempt, held at the sink, outlasts the lease it claimed with: the lease is renewed, and
    // while the other process polls (every 200 ms) past the first lease's end, it takes none of them.
    await waitUntil(
      "past the victim's first lease",
      async () =>
        (
          await sql.query<{ now: string }>(
            `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS now`,
          )
        ).rows[0].now,
      (now) => now > firstEnd && Date.parse(now) - Date.parse(firstEnd) > 1000,
      PROCS,
    );
    const renewed = await victimClaims();
    expect(renewed.map((r) => r.id)).toEqual(first.map((r) => r.id));
    for (const r of renewed) expect(r.until > firstEnd).toBe(true);
    await kill9(victim);
    // Its claims as it left them: their leases end without it.
    const left = await victimClaims();
    expect(left.map((r) => r.id)).toEqual(first.map((r) => r.id));
    await waitUntil(
      'the sink sees the victim gone',
      () => sink.heldOrphans(),
      (n) => n >= 1,
      PROCS,
    );
    sink.release();
    // The message the victim was sending when it died was never accepted (no 250): not a delivery.
    expect(sink.dropped.length).toBe(1);
    await expectEachDeliveredOnce();
    expect(sink.messages.length - before).toBe(12);
    expect(survivor.output()).toMatch(/took over deliveries whose claim ran out/);
    // Each was taken over only once its lease had ended, and sent by the survivor.
    const { rows: done } = await sql.query<{
      id: number;
      sent_at: string;
      attempts: number;
      last_error: string | null;
    }>('SELECT id, sent_at, attempts, last_error FROM outbox WHERE id = ANY($1) ORDER BY id', [left.map((r) => r.id)]);
    expect(done.map((r) => r.id)).toEqual(left.map((r) => r.id));
    for (const [i, r] of done.entries()) {
      expect(r.sent_at > left[i].until, `${r.sent_at} after ${left[i].until}`).toBe(true);
      expect(r).toMatchObject({ attempts: 2, last_error: null });
    }

    // The victim restarts while the survivor is delivering: it must not take the survivor's
    // attempts for its own dead ones.
    sink.hold();
    const more = await send(
      survivor.base,
      'POST',
      '/tickets',
      {
        queue_id: queueId,
        subject: 'Burst while the other restarts',
        requesters: Array.from({ length: 6 }, (_, i) => `more${i}@customers.example`),
      },
      { token },
    );
    expect(more.status).toBe(201);
    await waitUntil(
      'the survivor mid-delivery',
      async () => ({ byPid: [...(await claimedByPid())], held: sink.held() }),
      (s) => s.byPid.length === 1 && s.byPid[0][0] === survivor.child.pid && s.held === 1,
      PROCS,
    );
    const restarted = await serveShared();
    if (victim === a) a = restarted;
    else b = restarted;
    sink.release();
    await expectEachDeliveredOnce();
    expect(sink.messages.length - before).toBe(18);
    expect(sink.dropped).toHaveLength(1);
  }, 180_000);

  it('one IMAP poller at a time; SIGKILL of the holder: the survivor polls, each message one ticket', async () => {
    const append = async (subject: string, id: string) => {
      const c = new ImapFlow({
        host: dovecot.host,
        port: dovecot.port,
        secure: false,
        auth: { user: dovecot.user, pass: dovecot.password },
        logger: false,
      });
      await c.connect();
      try {
        await c.append(
          'INBOX',
          [
            `From: Customer <imap-${id}@customers.example>`,
            'To: support@example.com',
            `Subject: ${subject}`,
            `Message-ID: <${id}@customers.example>`,
            'Date: Tue, 02 Jun 2026 10:00:00 +0000',
            '',
            `Body of ${subject}.`,
            '',
          ].join('\r\n'),
        );
      } finally {
        await c.logout();
      }
    };
    const ticketsWith = async (subject: string) =>
      (await sql.query<{ id: number }>('SELECT id FROM tickets WHERE subject = $1', [subject])).rows;
    const handledBy = (s: ServerProcess) => (s.output().match(/imap: message handled/g) ?? []).length;

    // "message handled" is logged after the ticket committed and the message was flagged: wait for it.
    const handled = () => handledBy(a) + handledBy(b);
    await append('First by IMAP', 'imap-1');
    await waitUntil('the first message handled', handled, (n) => n === 1, PROCS);
    // Exactly one of the live processes is the poller (B has been up all along; A came back).
    const [holder, other] = handledBy(b) > 0 ? [b, a] : [a, b];
    const logs = () => `A:\n${a.output().slice(-3000)}\nB:\n${b.output().slice(-3000)}`;
    expect(handledBy(holder), logs()).toBe(1);
    expect(handledBy(other), logs()).toBe(0);
    await append('Second by IMAP', 'imap-2');
    await waitUntil(
      'the second message handled',
      () => handledBy(holder),
      (n) => n === 2,
      PROCS,
    );
    expect(handledBy(holder)).toBe(2);
    expect(handledBy(other)).toBe(0);

    await kill9(holder);
    await append('After the poller died', 'imap-3');
    // The survivor handles the new message (and, if the holder died before recording its last
    // UID, that message again: recognised by its identity, no second ticket).
    await waitUntil(
      'the survivor takes the mailbox over',
      async () => ({ handled: handledBy(other), tickets: (await ticketsWith('After the poller died')).length }),
      (s) => s.handled >= 1 && s.tickets === 1,
      PROCS,
    );
    for (const s of ['First by IMAP', 'Second by IMAP', 'After the poller died'])
      expect(await ticketsWith(s)).toHaveLength(1);
    const { rows: intake } = await sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM mail_intake WHERE message_id LIKE '<imap-%'",
    );
    expect(intake[0].n).toBe(3);
    if (holder === a) a = await serveShared();
    else b = await serveShared();
  }, 120_000);

  it("the poller's lock connection cut by the database: it notices, and one process polls again", async () => {
    const lockName = `imap:${dovecot.user}@${dovecot.host}:${dovecot.port}/INBOX`;
    const holders = async () =>
      (
        await sql.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = (hashtext($1)::bigint & 4294967295)::oid",
          [lockName],
        )
      ).rows.map((r) => r.pid);
    const [holderPid] = await waitUntil('one holder of the IMAP lock', holders, (p) => p.length === 1, PROCS);
    const lost = () => (a.output() + b.output()).match(/imap: lost the polling lock/g)?.length ?? 0;
    const lostBefore = lost();
    await sql.query('SELECT pg_terminate_backend($1)', [holderPid]);
    await waitUntil('the poller notices its lock is gone', lost, (n) => n > lostBefore, PROCS);
    await waitUntil('one process holds the lock again', holders, (p) => p.length === 1 && p[0] !== holderPid, PROCS);
    const c = new ImapFlow({
      host: dovecot.host,
      port: dovecot.port,
      secure: false,
      auth: { user: dovecot.user, pass: dovecot.password },
      logger: false,
    });
    await c.connect();
    await c.append(
      'INBOX',
      [
        'From: Customer <imap-4@customers.example>',
        'To: support@example.com',
        'Subject: After the lock was cut',
        'Message-ID: <imap-4@customers.example>',
        'Date: Tue, 02 Jun 2026 10:00:00 +0000',
        '',
        'Body.',
        '',
      ].join('\r\n'),
    );
    await c.logout();
    const tickets = () =>
      sql.query('SELECT id FROM tickets WHERE subject = $1', ['After the lock was cut']).then((r) => r.rows);
    await waitUntil('a ticket for the message', tickets, (r) => r.length === 1, PROCS);
    expect(await holders()).toHaveLength(1);
  }, 60_000);

  it('failed sign-ins on one process count on the other; a token works on both and its last use is recorded', async () => {
    const user = await send(
      a.base,
      'POST',
      '/users',
      { email: 'brake@example.com', name: 'Brake', role: 'agent', password: 'brake-password-123' },
      { token },
    );
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    for (let i = 0; i < LOGIN_LIMIT; i++) {
      const r = await send(i % 2 === 0 ? a.base : b.base, 'POST', '/login', {
        email: 'brake@example.com',
        password: `wrong-${i}`,
      });
      expect(r.status).toBe(401);
    }
    for (const s of [a, b]) {
      const r = await send(s.base, 'POST', '/login', { email: 'brake@example.com', password: 'brake-password-123' });
      expect(r.status).toBe(429);
    }
    const { rows } = await sql.query<{ failures: number }>(
      "SELECT failures FROM login_throttle WHERE key = 'login:brake@example.com'",
    );
    expect(rows[0].failures).toBe(LOGIN_LIMIT + 2);

    await sql.query('UPDATE api_tokens SET last_used_at = NULL');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        send(i % 2 === 0 ? a.base : b.base, 'GET', '/tickets?limit=1', undefined, { token }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    const { rows: tokens } = await sql.query<{ last_used_at: string | null }>('SELECT last_used_at FROM api_tokens');
    expect(tokens).toHaveLength(1);
    expect(tokens[0].last_used_at).not.toBeNull();
  }, 60_000);
});
