import { and, eq, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared, preparedForIds, storageUnavailable, transaction } from '../../db/port.js';
import { readsQuery } from '../../db/shared/pageParts.js';
import { ticketReads, transactions } from '../../db/tables.js';
import { type Actor, isStaff } from '../actor.js';
import { nowIso } from '../clock.js';
import type { TicketJson, TicketRow } from './serialize.js';

// SPEC D6 unread marks (docs/decisions/054). Each ticket keeps the id of its newest entry by a
// customer (tickets.customer_txn_id, kept by recordTransactions); each staff member, the newest
// entry of a ticket when they last opened its page (ticket_reads). A ticket is unread to them
// when a customer wrote after that, or they never opened it and a customer wrote on it at all.

const p = sql.placeholder;
const readOf = prepared((db) =>
  db
    .select({ seen: ticketReads.seen_txn_id })
    .from(ticketReads)
    .where(and(eq(ticketReads.user_id, p('user')), eq(ticketReads.ticket_id, p('ticket')))),
);
const newestEntry = prepared((db) =>
  db
    .select({ id: sql<number | null>`max(${transactions.id})` })
    .from(transactions)
    .where(eq(transactions.ticket_id, p('ticket'))),
);

/** The newest entry of a ticket the actor had seen when they last opened it, or null (never, or not staff). */
export async function seenUpTo(db: Db, actor: Actor, ticketId: number): Promise<number | null> {
  if (!isStaff(actor)) return null;
  return (await readOf(db).get({ user: actor.id, ticket: ticketId }))?.seen ?? null;
}

/**
 * A staff member opened the ticket's page: everything on it up to its newest entry is seen.
 * Answers what they had seen before (null: they never opened it), for the page's "New" marks.
 * Nothing is recorded for customers. A store that cannot write (a full disk) still shows the page.
 */
export async function markTicketSeen(db: Db, actor: Actor, ticketId: number): Promise<number | null> {
  if (!isStaff(actor)) return null;
  // Opened again with nothing new since (the usual case): no unit of work at all — on SQLite a
  // write that waits its turn behind every other, on PostgreSQL five round trips (issue 32).
  const [seen, newest] = await Promise.all([
    readOf(db).get({ user: actor.id, ticket: ticketId }),
    newestEntry(db).get({ ticket: ticketId }),
  ]);
  const before = seen?.seen ?? null;
  if (newest?.id == null || (before !== null && before >= Number(newest.id))) return before;
  try {
    return await transaction(db, async (tx) => {
      const before = (await readOf(tx).get({ user: actor.id, ticket: ticketId }))?.seen ?? null;
      const newest = (await newestEntry(tx).get({ ticket: ticketId }))?.id ?? null;
      if (newest === null) return before;
      await markSeenIn(tx, actor.id, ticketId, Math.max(Number(newest), before ?? 0));
      return before;
    });
  } catch (e) {
    if (storageUnavailable(db, e)) return seenUpTo(db, actor, ticketId);
    throw e;
  }
}

/**
 * Inside a unit of work: the user has seen the ticket up to entry `seen` (an opened page; a
 * message they sent, which answers what came before it). Never lowered: two tabs of one agent,
 * the older answered last.
 */
export async function markSeenIn(tx: Conn, userId: number, ticketId: number, seen: number): Promise<void> {
  await upsertSeen(tx).run({ user: userId, ticket: ticketId, seen, now: nowIso(tx) });
}
const upsertSeen = prepared((db) =>
  db
    .insert(ticketReads)
    .values({
      user_id: sql.placeholder('user'),
      ticket_id: sql.placeholder('ticket'),
      seen_txn_id: sql.placeholder('seen'),
      seen_at: sql.placeholder('now'),
    })
    .onConflictDoUpdate({
      target: [ticketReads.user_id, ticketReads.ticket_id],
      set: {
        seen_txn_id: sql`CASE WHEN ${ticketReads.seen_txn_id} > excluded.seen_txn_id THEN ${ticketReads.seen_txn_id} ELSE excluded.seen_txn_id END`,
        seen_at: sql`excluded.seen_at`,
      },
    }),
);

/** Whether a ticket is unread to someone who had seen up to `seen` (null: never opened it). */
export const isUnread = (customerTxnId: number | null, seen: number | null | undefined): boolean =>
  customerTxnId !== null && (seen == null || customerTxnId > seen);

const readsOfMany = preparedForIds((db, inIds) => readsQuery(db, sql.placeholder('user'), { inIds }));

/**
 * What a staff reader had seen of the listed tickets (customers' lists carry no `unread` flag:
 * null): one read of ticket_reads by its primary key (user, ticket) for the tickets of the page
 * that have customer entries at all. Read beside the tickets' other parts (issue 32), or given as
 * `read`: the rows the store read with the page (decision 105).
 */
export async function seenOfListed(
  conn: Conn,
  actor: Actor,
  rows: TicketRow[],
  read?: { ticket_id: number; seen: number }[],
): Promise<Map<number, number> | null> {
  if (!isStaff(actor) || rows.length === 0) return null;
  const ids = rows.filter((r) => r.customer_txn_id !== null).map((r) => r.id);
  const seen = new Map<number, number>();
  if (ids.length > 0)
    for (const r of read ?? (await readsOfMany(conn, ids, { user: actor.id }))) seen.set(r.ticket_id, r.seen);
  return seen;
}

/**
 * The `unread` flag of each listed ticket, from seenOfListed (null: none), set on the tickets
 * themselves: `list` is made for this list alone (copying 50 tickets of 25 fields to add one was
 * a twentieth of a JSON list's CPU, issue 32).
 */
export function withUnread(rows: TicketRow[], list: TicketJson[], seen: Map<number, number> | null): TicketJson[] {
  if (seen === null) return list;
  const customer = new Map(rows.map((r) => [r.id, r.customer_txn_id]));
  for (const t of list) t.unread = isUnread(customer.get(t.id) ?? null, seen.get(t.id));
  return list;
}
