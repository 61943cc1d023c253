import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared } from '../db/client.js';
import { outbox, transactions } from '../db/schema.js';
import { notifySettings } from './config.js';

// The durable outbox (SPEC B6): notifications are rows written in the ticket change's SQL
// transaction; the delivery worker sends them later. A row is `queued` until sent, `sending`
// while one attempt is in flight, then `sent`, or `failed` after the last attempt.

export type OutboxRow = typeof outbox.$inferSelect;
export const SUBJECT_TAG = (ticketId: number) => `[hxdesk #${ticketId}]`;

const mailDomain = () => notifySettings().mailFrom.split('@')[1] || 'localhost';

// randomUUID draws from a cached pool of entropy; randomBytes asks OpenSSL on every call (2–20 µs).
// A UUID's first 12 hex digits (around the first dash) are 48 random bits.
const random48 = () => { const u = randomUUID(); return u.slice(0, 8) + u.slice(9, 13); };
export const newMessageId = (ticketId: number) => `<hxdesk.${ticketId}.${Date.now().toString(36)}.${random48()}@${mailDomain()}>`;

/**
 * The Message-IDs a ticket's thread is made of, oldest first: inbound mail and our own.
 * Read through the ticket's transactions (`+message_id`: never the Message-ID index, whose
 * non-null part grows with all the mail ever received).
 */
export const inboundIds = prepared((db) => db.select({ id: transactions.message_id }).from(transactions)
  .where(and(eq(transactions.ticket_id, sql.placeholder('ticket')), sql`+${transactions.message_id} IS NOT NULL`)).orderBy(asc(transactions.id)).prepare());
const firstOwnId = prepared((db) => db.select({ id: outbox.message_id }).from(outbox)
  .where(and(eq(outbox.ticket_id, sql.placeholder('ticket')), eq(outbox.kind, 'email'), isNotNull(outbox.message_id)))
  .orderBy(asc(outbox.id)).limit(1).prepare());
const messageIdOf = prepared((db) => db.select({ id: transactions.message_id }).from(transactions)
  .where(eq(transactions.id, sql.placeholder('id'))).prepare());
const insertEmail = prepared((db) => db.insert(outbox).values({
  kind: 'email', ticket_id: sql.placeholder('ticket_id'), transaction_id: sql.placeholder('transaction_id'), scrip_id: sql.placeholder('scrip_id'),
  recipient: sql.placeholder('recipient'), subject: sql.placeholder('subject'), body: sql.placeholder('body'), headers: sql.placeholder('headers'),
  message_id: sql.placeholder('message_id'), audience: sql.placeholder('audience'), attachment_ids: sql.placeholder('attachment_ids'), status: 'queued', next_attempt_at: sql.placeholder('now'), created_at: sql.placeholder('now'),
}).prepare());

function threadIds(conn: Conn, ticketId: number): string[] {
  const inbound = inboundIds(conn).all({ ticket: ticketId });
  const ours = firstOwnId(conn).all({ ticket: ticketId });
  return [...inbound, ...ours].map((r) => r.id!).filter(Boolean);
}

/** A mailbox: a display name (may be empty) and an address. */
export interface Mailbox { name: string; address: string }

/**
 * One e-mail to one recipient (the SMTP envelope holds `recipient` alone). The headers show the
 * whole conversation (`to`, `cc`), so a customer's reply-all reaches the other people on the
 * ticket, while each copy carries links meant for its own reader (a portal link).
 */
export interface EmailInput {
  ticketId: number; transactionId: number; scripId: number;
  /** The envelope recipient of this copy. */
  recipient: string;
  /** The To and Cc header lists (SPEC C2: To the requesters, Cc the cc watchers). */
  to: Mailbox[]; cc: Mailbox[];
  /** SPEC C3: `"<agent> (<queue>)"` for human replies, `"<queue>"` for automatic mail; the queue address. */
  from: Mailbox;
  /** The queue address. */
  replyTo: Mailbox;
  subject: string;
  /** Plain text; delivery adds the HTML alternative. */
  body: string;
  audience: 'customer' | 'staff';
  /** `null` for a human-written reply relayed as is (SPEC C3). */
  autoSubmitted: 'auto-generated' | 'auto-replied' | null;
  /** Attachments (by id) of the transaction that go out with the mail. */
  attachmentIds: number[];
}

/**
 * Writes one e-mail row per copy, with threading headers worked out once per transaction and
 * a Message-ID of its own. Call inside the change's SQL transaction.
 */
export function enqueueEmail(conn: Conn, m: EmailInput): void {
  const tag = SUBJECT_TAG(m.ticketId);
  const subject = m.subject.includes(tag) ? m.subject : `${tag} ${m.subject}`.trim();
  const trigger = messageIdOf(conn).get({ id: m.transactionId })?.id;
  const thread = threadIds(conn, m.ticketId);
  const inReplyTo = trigger ?? thread[0];
  const references = [...new Set([thread[0], inReplyTo].filter(Boolean))];
  const headers: Record<string, string> = {
    From: m.from.address,
    'X-Auto-Response-Suppress': 'All',
    'X-Hxdesk-Ticket': String(m.ticketId),
  };
  if (m.autoSubmitted) headers['Auto-Submitted'] = m.autoSubmitted;
  if (inReplyTo) headers['In-Reply-To'] = inReplyTo;
  if (references.length) headers.References = references.join(' ');
  const now = new Date().toISOString();
  insertEmail(conn).run({
    ticket_id: m.ticketId, transaction_id: m.transactionId, scrip_id: m.scripId, recipient: m.recipient, subject,
    body: m.body, headers: JSON.stringify(headers), message_id: newMessageId(m.ticketId), now,
    audience: m.audience, attachment_ids: JSON.stringify(m.attachmentIds),
  });
}

export function enqueueWebhook(conn: Conn, w: { ticketId: number; transactionId: number; scripId: number; url: string; payload: unknown }): OutboxRow {
  const now = new Date().toISOString();
  return conn.insert(outbox).values({
    kind: 'webhook', ticket_id: w.ticketId, transaction_id: w.transactionId, scrip_id: w.scripId, recipient: w.url,
    body: JSON.stringify(w.payload), headers: '{}', status: 'queued', next_attempt_at: now, created_at: now,
  }).returning().get();
}

// ---- used by the delivery worker -------------------------------------------------------

/** After a crash, rows caught mid-attempt go back to the queue (at-least-once delivery). */
export function requeueInterrupted(db: Db): number {
  return db.update(outbox).set({ status: 'queued' }).where(eq(outbox.status, 'sending')).run().changes;
}

/** A query compiled once per database and per set of kinds (a worker always asks for the same ones). */
function forKinds<Q>(build: (db: Db, kinds: OutboxRow['kind'][]) => Q): (conn: Conn, kinds: OutboxRow['kind'][]) => Q {
  const byKinds = new Map<string, (conn: Conn) => Q>();
  return (conn, kinds) => {
    const key = kinds.join(',');
    let q = byKinds.get(key);
    if (!q) byKinds.set(key, (q = prepared((db) => build(db, kinds))));
    return q(conn);
  };
}
// The worker looks after every write that answered (a kick): these run on every write request.
const dueIds = forKinds((db, kinds) => db.select({ id: outbox.id }).from(outbox)
  .where(and(eq(outbox.status, 'queued'), inArray(outbox.kind, kinds), lte(outbox.next_attempt_at, sql.placeholder('now'))))
  .orderBy(asc(outbox.next_attempt_at), asc(outbox.id)).limit(sql.placeholder('limit')).prepare());
const firstDue = forKinds((db, kinds) => db.select({ at: sql<string | null>`min(${outbox.next_attempt_at})` }).from(outbox)
  .where(and(eq(outbox.status, 'queued'), inArray(outbox.kind, kinds))).prepare());

/** Claims due rows of the given kinds: marks them `sending` and counts the attempt. */
export function claimDue(db: Db, kinds: OutboxRow['kind'][], limit: number): OutboxRow[] {
  if (kinds.length === 0) return [];
  const dueNow = (conn: Conn) => dueIds(conn, kinds).all({ now: new Date().toISOString(), limit });
  // Most kicks find nothing due: look first without taking the write lock.
  if (dueNow(db).length === 0) return [];
  return db.transaction((tx) => {
    const due = dueNow(tx);
    if (due.length === 0) return [];
    return tx.update(outbox).set({ status: 'sending', attempts: sql`${outbox.attempts} + 1` })
      .where(inArray(outbox.id, due.map((d) => d.id))).returning().all().sort((a, b) => a.id - b.id);
  }, { behavior: 'immediate' });
}

/** Puts claimed rows that were never attempted (the worker is stopping) back, attempt uncounted. */
export function releaseClaimed(db: Db, ids: number[]): void {
  if (ids.length === 0) return;
  db.update(outbox).set({ status: 'queued', attempts: sql`${outbox.attempts} - 1` })
    .where(and(inArray(outbox.id, ids), eq(outbox.status, 'sending'))).run();
}

export function markSent(db: Db, id: number): void {
  db.update(outbox).set({ status: 'sent', sent_at: new Date().toISOString(), last_error: null }).where(eq(outbox.id, id)).run();
}

/** Records a failed attempt: back to the queue after an exponential backoff, or `failed` for good. */
export function markFailed(db: Db, row: OutboxRow, error: string, opts: { maxAttempts: number; retryBaseMs: number }): void {
  const final = row.attempts >= opts.maxAttempts;
  const delay = opts.retryBaseMs * 2 ** (row.attempts - 1);
  db.update(outbox).set({
    status: final ? 'failed' : 'queued', last_error: error.slice(0, 1000),
    next_attempt_at: new Date(Date.now() + (final ? 0 : delay)).toISOString(),
  }).where(eq(outbox.id, row.id)).run();
}

export function nextDueAt(db: Db, kinds: OutboxRow['kind'][]): string | null {
  if (kinds.length === 0) return null;
  return firstDue(db, kinds).get()?.at ?? null;
}

// ---- admin views -----------------------------------------------------------------------

export function listOutbox(db: Db, filter: { status?: OutboxRow['status']; ticket_id?: number; limit: number; offset: number }) {
  const conds = [];
  if (filter.status) conds.push(eq(outbox.status, filter.status));
  if (filter.ticket_id) conds.push(eq(outbox.ticket_id, filter.ticket_id));
  const where = and(...conds);
  const rows = db.select().from(outbox).where(where).orderBy(desc(outbox.id)).limit(filter.limit).offset(filter.offset).all();
  const total = db.select({ n: sql<number>`count(*)` }).from(outbox).where(where).get()!.n;
  return { rows, total };
}

export function getOutboxRow(db: Db, id: number): OutboxRow | undefined {
  return db.select().from(outbox).where(eq(outbox.id, id)).get();
}

export function requeue(db: Db, id: number): OutboxRow {
  return db.update(outbox).set({ status: 'queued', attempts: 0, last_error: null, next_attempt_at: new Date().toISOString() })
    .where(eq(outbox.id, id)).returning().get();
}
