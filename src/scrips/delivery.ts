import { createHmac, randomUUID } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import { hostname } from 'node:os';
import { type Db, errorMessage, listenStore, storageUnavailable } from '../db/port.js';
import { outsideRequest, throttled, type Throttled } from '../log.js';
import { composeMail } from './compose.js';
import { holdBatch } from './claimLease.js';
import type { OutboxRow } from './outbox.js';
import {
  claimDue,
  DEFAULT_LEASE_MS,
  markFailed,
  markSent,
  nextDueAt,
  releaseClaimed,
  TAKEN_OVER,
} from './outboxClaims.js';

/** The last error of a row given up when its last allowed attempt ended with its process. */
export const INTERRUPTED_TOO_OFTEN =
  'Given up after OUTBOX_MAX_ATTEMPTS attempts, the last one cut short by its process stopping';

export interface DeliveryOptions {
  /** Without it e-mail rows stay queued (SPEC B6) and only webhooks are delivered. */
  smtpUrl?: string;
  webhookSecret?: string;
  pollMs: number;
  retryBaseMs: number;
  maxAttempts: number;
  webhookTimeoutMs?: number;
  /** How long a claim on a row lasts unless renewed (OUTBOX_LEASE_MS; decision 059). */
  leaseMs?: number;
  log: (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;
  /** The worker's own failures, each cause at most once per 10 s (decision 042); made from `log` when not given. */
  say?: Throttled;
}

export interface DeliveryWorker {
  /** Finishes the attempt in flight, puts the rest of its batch back, then stops. */
  stop(): Promise<void>;
}

export const signWebhook = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * The in-process delivery worker: claims due outbox rows, sends them one at a time, records
 * each attempt, and backs off exponentially on failure. Claims are leases, renewed while held:
 * rows a crash left `sending` are taken over by the next claim of any worker — this process's
 * after a restart, or another's — once their lease ends (decision 059), so committed
 * notifications are never lost.
 */
export async function startDelivery(db: Db, opts: DeliveryOptions): Promise<DeliveryWorker> {
  // One pooled connection: a burst of mail (a reply to a requester, their Cc and the staff) goes
  // over one SMTP session instead of a connection and TLS handshake per message. A connection the
  // server dropped while idle is replaced at the next message.
  // nodemailer is loaded only when there is SMTP to send to (it costs a start ~0.1 s; issue 32).
  const nodemailer = opts.smtpUrl ? (await import('nodemailer')).default : undefined;
  const transport: Transporter | null = nodemailer
    ? nodemailer.createTransport({ url: opts.smtpUrl, pool: true, maxConnections: 1 } as Parameters<
        typeof nodemailer.createTransport
      >[0])
    : null;
  const kinds: OutboxRow['kind'][] = transport ? ['email', 'webhook'] : ['webhook'];
  // This worker's identity on its claims (`claimed_by`), new at every start. Its claims last
  // `leaseMs` unless renewed; a dead worker's are taken over by any worker once they end (decision 059).
  const self = `${hostname()}:${process.pid}:${randomUUID()}`;
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  if (!transport) opts.log('info', 'outbox: SMTP_URL is not set; e-mail stays queued in the outbox');

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let stopped = false;
  let again = false;
  const say = opts.say ?? throttled(opts.log);
  /**
   * Decision 042: bookkeeping a storage failure kept from being written — a sent row not yet
   * marked sent (it must not be sent again), a failed attempt, the unattempted rest of a batch put
   * back — written first, in order, when the worker runs again.
   */
  const owed: (() => Promise<void>)[] = [];
  /** While the store cannot write: how many turns failed in a row (the back-off grows with it). */
  let storageFailures = 0;

  /** Sends one row; for mail, returns a note for the admin when it went out without some of its files. */
  async function deliver(row: OutboxRow): Promise<string | null> {
    if (row.kind === 'email') {
      const { message, missing } = await composeMail(db, row);
      await transport!.sendMail(message);
      if (missing.length === 0) return null;
      opts.log('warn', 'outbox: sent without attachments that are no longer stored', {
        id: row.id,
        attachment_ids: missing,
      });
      return `Sent without ${missing.length === 1 ? 'attachment' : 'attachments'} ${missing.join(', ')}: no longer stored (deleted with their ticket?)`;
    }
    const res = await fetch(row.recipient, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'hxdesk-webhook',
        'x-hxdesk-delivery': String(row.id),
        ...(opts.webhookSecret ? { 'x-hxdesk-signature': signWebhook(opts.webhookSecret, row.body) } : {}),
      },
      body: row.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(opts.webhookTimeoutMs ?? 10_000),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
    return null;
  }

  async function settleOwed(): Promise<void> {
    while (owed.length > 0) {
      await owed[0]();
      owed.shift();
    }
  }

  async function drain(): Promise<void> {
    await settleOwed();
    for (;;) {
      // real time: the delivery schedule (decision 047).
      const claimedAt = Date.now();
      const batch = await claimDue(db, kinds, 20, { owner: self, leaseMs, now: claimedAt });
      if (batch.length === 0) return;
      const takenOver = batch.filter((r) => r.last_error === TAKEN_OVER).length;
      if (takenOver > 0)
        opts.log('warn', 'outbox: took over deliveries whose claim ran out (a process stopped mid-delivery)', {
          count: takenOver,
        });
      const lease = holdBatch(
        db,
        batch.map((r) => r.id),
        { owner: self, leaseMs, claimedAt },
        (e) =>
          say(`outbox:renew:${errorMessage(e)}`, 'warn', 'outbox: could not renew a claim', { error: errorMessage(e) }),
      );
      try {
        for (const row of batch) {
          if (stopped) {
            await releaseClaimed(db, lease.ids(), self);
            return;
          }
          // Taken over by another worker after this one's lease ended (it stalled): theirs now.
          if (!(await lease.keep(row.id))) continue;
          let record: () => Promise<void>;
          if (row.last_error === TAKEN_OVER && row.attempts > opts.maxAttempts) {
            // Its attempts are used up, the last one ended with its process (a message that
            // crashes its sender?): not tried again; an admin may retry it.
            record = () => markFailed(db, row, INTERRUPTED_TOO_OFTEN, { ...opts, maxAttempts: 0 });
            opts.log('warn', 'outbox: gave up a delivery whose last attempt was cut short', { id: row.id });
          } else
            try {
              const note = await deliver(row);
              record = () => markSent(db, row.id, note);
            } catch (e) {
              const error = errorMessage(e);
              record = () => markFailed(db, row, error, opts);
              opts.log('warn', 'outbox: delivery failed', { id: row.id, kind: row.kind, attempt: row.attempts, error });
            }
          lease.done(row.id);
          try {
            await record();
          } catch (e) {
            if (!storageUnavailable(db, e)) throw e;
            owed.push(record);
            const rest = lease.ids();
            if (rest.length > 0) owed.push(() => releaseClaimed(db, rest, self));
            throw e;
          }
        }
      } finally {
        lease.stop();
      }
      if (stopped) return;
    }
  }

  /** A turn that failed: said once per cause per 10 s; a storage failure backs the worker off. Returns the wait before the next turn, if any. */
  function failed(e: unknown): number | undefined {
    const storage = storageUnavailable(db, e);
    if (!storage) {
      say(`outbox:error:${errorMessage(e)}`, 'error', 'outbox: worker error', { error: errorMessage(e) });
      return undefined;
    }
    storageFailures++;
    const wait = Math.min(opts.pollMs * 2 ** (storageFailures - 1), opts.pollMs * 10);
    say(`outbox:${storage.storage}`, 'error', `outbox: delivery paused, ${storage.message}; trying again`, {
      cause: storage.storage,
      owed: owed.length,
    });
    return wait;
  }

  function resumed(): void {
    if (storageFailures === 0) return;
    storageFailures = 0;
    say.clear('outbox:');
    opts.log('info', 'outbox: the store takes writes again; delivery resumed');
  }

  async function schedule(backoff?: number): Promise<void> {
    if (stopped) return;
    clearTimeout(timer);
    const due = backoff === undefined ? await nextDueAt(db, kinds) : null;
    // A claim whose lease ended (a worker that died mid-batch) is found by the poll.
    const wait = backoff ?? (due ? Math.min(opts.pollMs, Math.max(0, Date.parse(due) - Date.now())) : opts.pollMs);
    timer = setTimeout(() => void tick(), wait);
    timer.unref();
  }

  async function tick(): Promise<void> {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    let backoff: number | undefined;
    running = drain()
      .then(resumed, (e) => {
        backoff = failed(e);
      })
      .finally(() => {
        running = null;
        // After a storage failure the next turn waits (a kick, after a write that worked, may come sooner).
        if (again && backoff === undefined) {
          again = false;
          void tick();
        } else {
          again = false;
          void schedule(backoff).catch((e) => {
            failed(e);
          });
        }
      });
  }

  // Decision 045: the store's change signal wakes the worker, as it wakes the live-update hub. Every
  // outbox row is written by a unit of work that appends to the change log (a ticket change and
  // its scrips; an admin's retry says so too), and the store signals once that has committed —
  // in this process on SQLite, from every process through LISTEN/NOTIFY on PostgreSQL — so mail
  // leaves at once whichever door the change came through: HTTP, IMAP, another process. The
  // signals of one turn of the event loop (a burst of writes under load) make one look at the
  // outbox, after the writes' responses are on their way; the poll (OUTBOX_POLL_MS) stays for
  // retries that fall due and for a signal lost with a database connection.
  let kicked = false;
  function kick(): void {
    if (kicked || stopped) return;
    kicked = true;
    setImmediate(() => {
      kicked = false;
      void tick();
    });
  }
  // Outside the request whose commit signalled (SQLite): the worker's lines are its own.
  const unlisten = listenStore(db, (s) => {
    if (s.kind === 'log') outsideRequest(kick);
  });

  void tick();
  return {
    async stop() {
      stopped = true;
      unlisten();
      clearTimeout(timer);
      await running;
      // What a storage failure left unwritten, one last time (else the rows stay `sending` until their lease ends).
      await settleOwed().catch(() => {});
      transport?.close();
    },
  };
}
