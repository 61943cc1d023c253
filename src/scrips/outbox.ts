import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql, count } from 'drizzle-orm';
import addressparser from 'nodemailer/lib/addressparser';
import { type Conn, type Db, logAppend, prepared, first, transaction, one } from '../db/port.js';
import { outbox } from '../db/tables.js';
import { nowIso } from '../domain/clock.js';
import { noteQueued, threading } from './thread.js';

// The durable outbox (SPEC B6): notifications are rows written in the ticket change's SQL
// transaction; the delivery worker sends them later. A row is `queued` until sent, `sending`
// while one attempt is in flight, then `sent`, or `failed` after the last attempt.

export type OutboxRow = typeof outbox.$inferSelect;
export const SUBJECT_TAG = (ticketId: number) => `[hxdesk #${ticketId}]`;

/** Our Message-IDs are named by MAIL_FROM's domain. */
const mailDomain = (mailFrom: string) => mailFrom.split('@')[1] || 'localhost';

// randomUUID draws from a cached pool of entropy; randomBytes asks OpenSSL on every call (2–20 µs).
// A UUID's first 12 hex digits (around the first dash) are 48 random bits.
const random48 = () => {
  const u = randomUUID();
  return u.slice(0, 8) + u.slice(9, 13);
};
export function newMessageId(ticketId: number, mailFrom: string): string {
  // real time: an identifier's ingredient (unique with the random part), not a time anyone reads.
  const stamp = Date.now().toString(36);
  return `<hxdesk.${ticketId}.${stamp}.${random48()}@${mailDomain(mailFrom)}>`;
}

/**
 * When a row is due to be tried (`next_attempt_at`, and the instant claims compare it with): the
 * real time, not the store's clock (decision 047). Delivery is machinery: its retry delays wait
 * for another server in real seconds, and a test clock standing still must not hold mail back.
 */
// real time: the delivery schedule.
export const deliveryNow = (afterMs = 0) => new Date(Date.now() + afterMs).toISOString();

/** `make(k)` for each `k` once (the values are never undefined): what the copies of one mail share. */
const once = <K, V>(make: (k: K) => V) => {
  const seen = new Map<K, V>();
  return (k: K) => {
    let v = seen.get(k);
    if (v === undefined) seen.set(k, (v = make(k)));
    return v;
  };
};

/** The placeholders of one queued e-mail's row, in the order enqueueEmails gives their values. */
const ROW_PARAMS = [
  'ticket_id',
  'transaction_id',
  'scrip_id',
  'recipient',
  'subject',
  'body',
  'headers',
  'message_id',
  'now',
  'due',
  'audience',
  'attachment_ids',
] as const;
const paramNamesByRows = new Map<number, string[]>();
/** The placeholder names of `n` rows, row after row (`<param>_<row>`). */
const paramNames = (n: number) => {
  let names = paramNamesByRows.get(n);
  if (!names)
    paramNamesByRows.set(n, (names = Array.from({ length: n }, (_, i) => ROW_PARAMS.map((p) => `${p}_${i}`)).flat()));
  return names;
};

/** The columns of one queued e-mail, with placeholders named `<column><suffix>`. */
const emailRow = (suffix: string) => ({
  kind: 'email' as const,
  ticket_id: sql.placeholder(`ticket_id${suffix}`),
  transaction_id: sql.placeholder(`transaction_id${suffix}`),
  scrip_id: sql.placeholder(`scrip_id${suffix}`),
  recipient: sql.placeholder(`recipient${suffix}`),
  subject: sql.placeholder(`subject${suffix}`),
  body: sql.placeholder(`body${suffix}`),
  headers: sql.placeholder(`headers${suffix}`),
  message_id: sql.placeholder(`message_id${suffix}`),
  audience: sql.placeholder(`audience${suffix}`),
  attachment_ids: sql.placeholder(`attachment_ids${suffix}`),
  status: 'queued' as const,
  next_attempt_at: sql.placeholder(`due${suffix}`),
  created_at: sql.placeholder(`now${suffix}`),
});

/**
 * Every copy of a notification in one INSERT (decision 066: one round trip, not one per
 * recipient), prepared once per number of rows (decision 067: building and preparing the
 * statement for each write cost SQLite more than the statement itself). Past MAX_ROWS_PREPARED
 * copies the rows go in chunks of that many.
 */
const MAX_ROWS_PREPARED = 32;
const insertEmails = new Map<number, ReturnType<typeof insertEmailsOf>>();
const insertEmailsOf = (n: number) =>
  prepared((db) => db.insert(outbox).values(Array.from({ length: n }, (_, i) => emailRow(`_${i}`))));
const insertEmailRows = (n: number) => {
  let p = insertEmails.get(n);
  if (!p) insertEmails.set(n, (p = insertEmailsOf(n)));
  return p;
};

/** A mailbox: a display name (may be empty) and an address. */
export interface Mailbox {
  name: string;
  address: string;
}

/**
 * One e-mail to one recipient (the SMTP envelope holds `recipient` alone). The headers show the
 * whole conversation (`to`, `cc`), so a customer's reply-all reaches the other people on the
 * ticket, while each copy carries links meant for its own reader (a portal link).
 */
export interface EmailInput {
  ticketId: number;
  transactionId: number;
  scripId: number;
  /** The envelope recipient of this copy. */
  recipient: string;
  /** The To and Cc header lists (SPEC C2: To the requesters, Cc the cc watchers). */
  to: Mailbox[];
  cc: Mailbox[];
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

// Reply and forward prefixes as mail clients write them (English, German, Nordic, Dutch), with a count ("Re[2]:").
const PREFIXES = /^(?:(?:re|fwd?|aw|wg|sv|vs|antw)(?:\[\d{1,4}\])?[ \t]*:[ \t]*){1,20}/i;

/**
 * The subject with the ticket's tag, after any `Re:`/`Fwd:` prefixes: "Re: [hxdesk #12] Printer".
 * Every mail of a conversation then has the subject a customer's "Re:" gives it, which is what
 * Gmail threads by (with References).
 */
export function taggedSubject(subject: string, ticketId: number): string {
  const tag = SUBJECT_TAG(ticketId);
  if (subject.includes(tag)) return subject;
  const prefix = PREFIXES.exec(subject)?.[0] ?? '';
  return `${prefix}${tag} ${subject.slice(prefix.length)}`.trim();
}

/** `"Name" <address>` (the name quoted, `"` and `\\` escaped; control characters made spaces), or the bare address. */
export function formatMailbox(m: Mailbox): string {
  const name = m.name
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return name ? `"${name.replace(/["\\]/g, '\\$&')}" <${m.address}>` : m.address;
}

/**
 * Writes the copies of one mail (the same transaction, scrip and audience): one row per copy,
 * with the threading headers worked out once and one Message-ID they share. Call inside the
 * change's SQL transaction. `mailFrom` (MAIL_FROM) names a new Message-ID's domain.
 */

export async function enqueueEmails(conn: Conn, copies: EmailInput[], mailFrom: string): Promise<void> {
  if (copies.length === 0) return;
  const t = await threading(conn, copies[0]);
  const messageId = t.sharedMessageId ?? newMessageId(copies[0].ticketId, mailFrom);
  const now = nowIso(conn);
  const due = deliveryNow();
  // The copies of one mail share most of what their rows hold (the sender, the subject, the
  // files; a staff notice's copies differ in To alone): each is worked out once (issue 32).
  const byAddress = once((address: string) => once((name: string) => formatMailbox({ name, address })));
  const mailbox = (m: Mailbox) => byAddress(m.address)(m.name);
  const mailboxes = once((list: Mailbox[]) => list.map(mailbox).join(', '));
  const subjectOf = once((ticket: number) => once((subject: string) => taggedSubject(subject, ticket)));
  const files = once((ids: number[]) => JSON.stringify(ids));
  const rows = copies.map((m) => {
    const headers: Record<string, string> = {
      From: mailbox(m.from),
      'Reply-To': mailbox(m.replyTo),
      To: m.to.length ? mailboxes(m.to) : m.recipient,
    };
    if (m.cc.length) headers.Cc = mailboxes(m.cc);
    if (t.inReplyTo) headers['In-Reply-To'] = t.inReplyTo;
    if (t.references.length) headers.References = t.references.join(' ');
    if (m.autoSubmitted) {
      headers['Auto-Submitted'] = m.autoSubmitted;
      // Asks Exchange not to answer with out-of-office and the like; a person's reply gets what a person's mail gets.
      headers['X-Auto-Response-Suppress'] = 'All';
    }
    headers['X-Hxdesk-Ticket'] = String(m.ticketId);
    return [
      m.ticketId,
      m.transactionId,
      m.scripId,
      m.recipient,
      subjectOf(m.ticketId)(m.subject),
      m.body,
      JSON.stringify(headers),
      messageId,
      now,
      due,
      m.audience,
      files(m.attachmentIds),
    ];
  });
  await noteQueued(conn, copies[0], messageId);
  for (let at = 0; at < rows.length; at += MAX_ROWS_PREPARED) {
    const chunk = rows.slice(at, at + MAX_ROWS_PREPARED);
    const names = paramNames(chunk.length);
    const params: Record<string, unknown> = {};
    let k = 0;
    for (const row of chunk) for (const v of row) params[names[k++]] = v;
    await insertEmailRows(chunk.length)(conn).run(params);
  }
}

/** What a row's `headers` JSON says, read back: mailboxes parsed, the rest as stored. */
export interface StoredMail {
  from: Mailbox | null;
  replyTo: Mailbox | null;
  to: Mailbox[];
  cc: Mailbox[];
  inReplyTo?: string;
  references?: string;
  /** Every other header, sent as is (Auto-Submitted, X-Auto-Response-Suppress, X-Hxdesk-Ticket). */
  extra: Record<string, string>;
}

const mailboxes = (value: string | undefined): Mailbox[] =>
  value
    ? addressparser(value, { flatten: true })
        .filter((a) => a.address)
        .map((a) => ({ name: a.name ?? '', address: a.address }))
    : [];

/**
 * The stored headers of an e-mail row. Rows queued before To and Cc were stored (an upgrade
 * with mail waiting) are addressed To their envelope recipient, as they were then.
 */
export function storedMail(row: Pick<OutboxRow, 'headers' | 'recipient'>): StoredMail {
  let headers: Record<string, string> = {};
  try {
    headers = JSON.parse(row.headers) as Record<string, string>;
  } catch {
    /* a broken row is sent with what it has */
  }
  const {
    From: from,
    'Reply-To': replyTo,
    To: to,
    Cc: cc,
    'In-Reply-To': inReplyTo,
    References: references,
    ...extra
  } = headers;
  return {
    from: mailboxes(from)[0] ?? null,
    replyTo: mailboxes(replyTo)[0] ?? null,
    to: to === undefined ? [{ name: '', address: row.recipient }] : mailboxes(to),
    cc: mailboxes(cc),
    inReplyTo,
    references,
    extra,
  };
}

export async function enqueueWebhook(
  conn: Conn,
  w: { ticketId: number; transactionId: number; scripId: number; url: string; payload: unknown },
): Promise<OutboxRow> {
  return await one(
    conn
      .insert(outbox)
      .values({
        kind: 'webhook',
        ticket_id: w.ticketId,
        transaction_id: w.transactionId,
        scrip_id: w.scripId,
        recipient: w.url,
        body: JSON.stringify(w.payload),
        headers: '{}',
        status: 'queued',
        next_attempt_at: deliveryNow(),
        created_at: nowIso(conn),
      })
      .returning(),
  );
}

// ---- admin views -----------------------------------------------------------------------

export async function listOutbox(
  db: Db,
  filter: { status?: OutboxRow['status']; ticket_id?: number; limit: number; offset: number },
) {
  const conds = [];
  if (filter.status) conds.push(eq(outbox.status, filter.status));
  if (filter.ticket_id) conds.push(eq(outbox.ticket_id, filter.ticket_id));
  const where = and(...conds);
  const rows = await db
    .select()
    .from(outbox)
    .where(where)
    .orderBy(desc(outbox.id))
    .limit(filter.limit)
    .offset(filter.offset);
  const total = (await first(db.select({ n: count() }).from(outbox).where(where)))!.n;
  return { rows, total };
}

export async function getOutboxRow(db: Db, id: number): Promise<OutboxRow | undefined> {
  return await first(db.select().from(outbox).where(eq(outbox.id, id)));
}

export async function requeue(db: Db, id: number): Promise<OutboxRow> {
  return await transaction(db, async (tx) => {
    // The store's change signal, which the delivery workers follow (decision 045): the row goes
    // out at once, from whichever process takes it. (The live-update hub finds nothing new.)
    await logAppend(tx);
    return one(
      tx
        .update(outbox)
        .set({
          status: 'queued',
          attempts: 0,
          last_error: null,
          next_attempt_at: deliveryNow(),
          claimed_by: null,
          claimed_until: null,
        })
        .where(eq(outbox.id, id))
        .returning(),
    );
  });
}
