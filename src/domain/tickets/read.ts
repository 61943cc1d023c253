import type { Conn, Db } from '../../db/port.js';
import { type Actor, isStaff, worksAnyTicket } from '../actor.js';
import { MergedError, notFound } from '../errors.js';
import { attachmentWithTicket, transactionsOfTicket, type TransactionJson } from '../transactions.js';
import { isCustomerOf } from '../watchers.js';
import { type CustomerTicketJson, getTicketRow, ticketJsonBeside, type TicketRow } from './serialize.js';
import { HIDDEN_STATUS, ticketFor, transactionsFor } from '../customerView.js';

// Reading a ticket, its history and its files as an actor may (decision 050).

/**
 * Loads a ticket the actor may see; others' tickets are "not found" to requesters, and so are
 * their own deleted ones (decision 050).
 */
export async function visibleTicket(
  conn: Conn,
  actor: Actor,
  id: number,
  locked?: TicketRow | null,
): Promise<TicketRow> {
  // `locked`: the row its lock returned (decision 067; null: no such ticket), not read again.
  const row = locked === undefined ? await getTicketRow(conn, id) : (locked ?? undefined);
  if (
    !row ||
    (!worksAnyTicket(actor) &&
      (row.status === HIDDEN_STATUS || (row.requester_id !== actor.id && !(await isCustomerOf(conn, id, actor.id)))))
  )
    throw notFound('Ticket', id);
  // SPEC D3 (decision 076): a merged ticket takes no change and is read as a tombstone (the route answers it).
  if (row.merged_into !== null)
    throw worksAnyTicket(actor) ? new MergedError(id, row.merged_into) : notFound('Ticket', id);
  return row;
}

/** A ticket as the actor may read it: a requester's without the staff fields (decision 050). */
export async function getTicket(db: Db, actor: Actor, id: number): Promise<CustomerTicketJson> {
  // The parts beside the row are read with it, not after it (on PostgreSQL a round trip; decision 097).
  return ticketFor(actor, await ticketJsonBeside(db, id, visibleTicket(db, actor, id)));
}

/** An attachment, if the actor may see its ticket and (for requesters) it is not on an internal note. */
export async function getAttachment(db: Db, actor: Actor, id: number) {
  const a = await attachmentWithTicket(db, id);
  if (!a) throw notFound('Attachment', id);
  try {
    await visibleTicket(db, actor, a.ticket_id);
  } catch {
    throw notFound('Attachment', id);
  }
  if (a.type === 'Comment' && !isStaff(actor)) throw notFound('Attachment', id);
  return a;
}

/** A ticket's history as this actor may see it (customers: no internal notes); `after`: only the entries after that id. */
export async function listTicketTransactions(
  db: Db,
  actor: Actor,
  id: number,
  opts: { after?: number } = {},
): Promise<TransactionJson[]> {
  await visibleTicket(db, actor, id);
  return historyOfReadTicket(db, actor, { id }, opts);
}

/**
 * The history of a ticket this actor has just read with getTicket (which refused it if they may
 * not see it): its row is not read a second time (the ticket page; issue 32).
 */
export async function historyOfReadTicket(
  db: Db,
  actor: Actor,
  ticket: Pick<CustomerTicketJson, 'id'>,
  opts: { after?: number } = {},
): Promise<TransactionJson[]> {
  return transactionsFor(
    actor,
    await transactionsOfTicket(db, ticket.id, { includeComments: isStaff(actor), after: opts.after }),
  );
}

/** One transaction of a ticket, as its history shows it to this actor (404 otherwise). */
export async function getTicketTransaction(
  db: Db,
  actor: Actor,
  ticketId: number,
  txnId: number,
): Promise<TransactionJson> {
  const t = (await listTicketTransactions(db, actor, ticketId)).find((x) => x.id === txnId);
  if (!t) throw notFound('Transaction', txnId);
  return t;
}
