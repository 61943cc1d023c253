import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { type Conn, type Db, inUnitOfWork, notIndexed, oncePerUnit, prepared } from '../db/port.js';
import { outbox, transactions } from '../db/tables.js';
import { forgetInUnit } from '../db/unitMemo.js';

// A notification's threading headers (SPEC C3): In-Reply-To and References from a ticket's
// Message-IDs in and out, read once per unit of work (decision 067).

/**
 * The Message-IDs of a ticket's mail: inbound mail (on its transactions) and our own (outbox
 * rows), in one statement (decision 067: every mail a change sends reads them). Read through the
 * ticket's transactions (never the Message-ID index, whose non-null part grows with all the mail
 * ever received) and the outbox's ticket index. `outbound` tells the two apart, `pos` orders each
 * (the transaction's id, the outbox row's id); the caller sorts.
 */
export const threadIdsQuery = (db: Db) =>
  db
    .select({
      outbound: sql<number>`0`,
      pos: sql<number>`${transactions.id}`,
      tx: sql<number | null>`${transactions.id}`,
      id: sql<string | null>`${transactions.message_id}`,
      type: sql<string | null>`${transactions.type}`,
      audience: sql<string | null>`NULL`,
      scrip: sql<number | null>`NULL`,
    })
    .from(transactions)
    .where(
      and(
        eq(transactions.ticket_id, sql.placeholder('ticket')),
        sql`${notIndexed(db, transactions.message_id)} IS NOT NULL`,
      ),
    )
    .unionAll(
      db
        .select({
          outbound: sql<number>`1`,
          pos: sql<number>`${outbox.id}`,
          tx: sql<number | null>`${outbox.transaction_id}`,
          id: sql<string | null>`${outbox.message_id}`,
          type: sql<string | null>`NULL`,
          audience: sql<string | null>`${outbox.audience}`,
          scrip: sql<number | null>`${outbox.scrip_id}`,
        })
        .from(outbox)
        .where(
          and(eq(outbox.ticket_id, sql.placeholder('ticket')), eq(outbox.kind, 'email'), isNotNull(outbox.message_id)),
        ),
    );
const threadIds = prepared(threadIdsQuery);
type ThreadRow = Awaited<ReturnType<ReturnType<typeof threadIds>['all']>>[number];

/** The memo key of a ticket's thread in a unit of work (decision 067). */
const threadKey = (ticketId: number) => `thread:${ticketId}`;
/**
 * A ticket's Message-IDs, read once per unit of work (its scrips may send several mails): each
 * mail this unit of work queues is added to what was read, and a transaction it writes makes it
 * read afresh (`forgetThread`).
 */
const threadOf = (conn: Conn, ticketId: number): Promise<ThreadRow[]> =>
  oncePerUnit(conn, threadKey(ticketId), async () => [...(await threadIds(conn).all({ ticket: ticketId }))]);
/** A transaction was written on the ticket (it may carry a Message-ID): its thread is read afresh. */
export const forgetThread = (ticketId: number) => forgetInUnit(threadKey(ticketId));

/** At most this many Message-IDs in References: the root and the newest (SPEC C3). */
export const MAX_REFERENCES = 20;

/** A Message-ID as a header carries it (`<id>`), or null for one that cannot be (white space, brackets inside). */
function msgId(raw: string | null): string | null {
  if (!raw) return null;
  const id = raw.trim();
  if (/^<[^<>\s]+>$/.test(id)) return id;
  return /^[^<>\s]+$/.test(id) ? `<${id}>` : null;
}

export interface Threading {
  /** The message this mail answers: the transaction's own inbound message, else the thread's newest earlier one. */
  inReplyTo: string | null;
  /** The thread before this mail, oldest first, newest last, no duplicates, at most MAX_REFERENCES (root kept). */
  references: string[];
  /** A sibling copy's Message-ID (same transaction, scrip and audience), which this copy shares. */
  sharedMessageId: string | null;
}

/**
 * The threading headers of a mail about `transactionId`: every earlier message of the ticket in
 * order (a transaction's inbound message before the mail it caused), plus the transaction's own
 * inbound message. Customer mail sees only what customers saw: our staff copies and the inbound
 * messages of internal notes (Comment) stay out of it.
 */
export async function threading(
  conn: Conn,
  m: { ticketId: number; transactionId: number; scripId: number; audience: 'customer' | 'staff' },
): Promise<Threading> {
  const customer = m.audience === 'customer';
  const thread: string[] = [];
  let trigger: string | null = null;
  let sharedMessageId: string | null = null;
  const ids = await threadOf(conn, m.ticketId);
  const byPos = (a: { pos: number }, b: { pos: number }) => Number(a.pos) - Number(b.pos);
  const inbound = ids
    .filter((r) => Number(r.outbound) === 0)
    .sort(byPos)
    .map((r) => ({ tx: Number(r.tx), id: r.id, type: r.type }))
    .filter((r) => r.tx <= m.transactionId && !(customer && r.type === 'Comment'));
  // Outbox rows are written with their transaction, so their order is that of their transactions already; a stable sort makes sure.
  const outbound = ids
    .filter((r) => Number(r.outbound) === 1)
    .sort(byPos)
    .map((r) => ({
      tx: r.tx === null ? null : Number(r.tx),
      id: r.id,
      audience: r.audience,
      scrip: r.scrip === null ? null : Number(r.scrip),
    }))
    .sort((a, b) => (a.tx ?? 0) - (b.tx ?? 0));
  let o = 0;
  // Merge by transaction: a transaction's inbound message comes before the mail it caused.
  const pushOutboundBefore = (tx: number) => {
    for (; o < outbound.length && (outbound[o].tx ?? 0) < tx; o++) {
      const r = outbound[o];
      // Rows from before audiences existed (null) were all notifications about the ticket: kept.
      if (customer && r.audience === 'staff') continue;
      const id = msgId(r.id);
      if (id) thread.push(id);
    }
  };
  for (const r of inbound) {
    pushOutboundBefore(r.tx);
    const id = msgId(r.id);
    if (!id) continue;
    if (r.tx === m.transactionId) trigger = id;
    else thread.push(id);
  }
  pushOutboundBefore(m.transactionId);
  for (const r of outbound) {
    if (r.tx === m.transactionId && r.scrip === m.scripId && (r.audience ?? 'customer') === m.audience) {
      sharedMessageId = r.id;
      break;
    }
  }
  if (trigger) thread.push(trigger);
  const unique = [...new Set(thread)];
  const references = unique.length > MAX_REFERENCES ? [unique[0], ...unique.slice(-(MAX_REFERENCES - 1))] : unique;
  return { inReplyTo: trigger ?? unique.at(-1) ?? null, references, sharedMessageId };
}

/** The mail about to be queued joins the ticket's thread as this unit of work has read it (one Message-ID for all copies). */
export async function noteQueued(
  conn: Conn,
  m: { ticketId: number; transactionId: number; scripId: number; audience: 'customer' | 'staff' },
  messageId: string,
): Promise<void> {
  if (!inUnitOfWork(conn)) return;
  const rows = await threadOf(conn, m.ticketId);
  const last = rows.reduce((n, r) => (Number(r.outbound) === 1 ? Math.max(n, Number(r.pos)) : n), 0);
  rows.push({
    outbound: 1,
    pos: last + 1, // after every outbox row there is: its id is larger
    tx: m.transactionId,
    id: messageId,
    type: null,
    audience: m.audience,
    scrip: m.scripId,
  });
}
