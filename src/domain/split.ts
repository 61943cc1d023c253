import { and, asc, eq } from 'drizzle-orm';
import { type Conn, type Db, first, lockAndReadTicket, transaction } from '../db/port.js';
import { attachments, transactions } from '../db/tables.js';
import type { NotifySettings } from '../scrips/config.js';
import type { ScripResult } from '../scrips/kinds.js';
import { type Actor, isStaff, requireStaff } from './actor.js';
import { AppError, invalid, notFound } from './errors.js';
import { addLinkIn } from './links.js';
import { createTicket } from './tickets/write.js';
import type { TicketJson } from './tickets/serialize.js';
import { getTicketRow, ticketsJson } from './tickets/serialize.js';
import { getUserRow } from './users.js';

// SPEC D3 split (docs/decisions/075): one message of a ticket becomes a new ticket in the same
// queue. Its Create carries the message's text and a copy of its files (the attachment rows hold
// their bytes; each ticket keeps its own), its requester is the message's author (staff wrote
// it: the old ticket's requester), and the new ticket `refers_to` the old one. The message stays
// where it was: history is not rewritten. One unit of work: the old ticket is locked first, then
// the new one is created (a higher id: the lock order of links holds).

/** The history entries that are messages, and so can be split off. */
export const SPLITTABLE = ['Create', 'Correspond', 'Comment'] as const;

export interface SplitInput {
  transaction_id: number;
  subject?: string;
}

/** The message and what a split of it would make: the confirmation page shows this. */
export interface SplitPlan {
  message: { id: number; type: string; creator_id: number | null; body: string; created_at: string };
  files: { filename: string; content_type: string; size: number }[];
  requester_id: number | null;
  queue_id: number;
  subject: string;
}

async function messageOf(conn: Conn, ticketId: number, txnId: number) {
  const t = await first(
    conn
      .select()
      .from(transactions)
      .where(and(eq(transactions.id, txnId), eq(transactions.ticket_id, ticketId))),
  );
  if (!t) throw invalid('transaction_id', `Ticket #${ticketId} has no history entry #${txnId}`);
  if (!(SPLITTABLE as readonly string[]).includes(t.type))
    throw invalid(
      'transaction_id',
      `Entry #${txnId} is ${t.type}: only a message (Create, Correspond or Comment) can be split off`,
    );
  return t;
}

/** What splitting message `txnId` of ticket `id` would make (staff; nothing written). */
export async function planSplit(conn: Conn, actor: Actor, id: number, input: SplitInput): Promise<SplitPlan> {
  requireStaff(actor);
  const ticket = await getTicketRow(conn, id);
  if (!ticket) throw notFound('Ticket', id);
  const t = await messageOf(conn, id, input.transaction_id);
  const files = await conn
    .select({ filename: attachments.filename, content_type: attachments.content_type, size: attachments.size })
    .from(attachments)
    .where(eq(attachments.transaction_id, t.id))
    .orderBy(asc(attachments.id));
  const author = t.creator_id === null ? undefined : await getUserRow(conn, t.creator_id);
  return {
    message: { id: t.id, type: t.type, creator_id: t.creator_id, body: t.body ?? '', created_at: t.created_at },
    files,
    // A customer's (or an outside sender's) message: theirs. Staff's or the system's: the old ticket's requester.
    requester_id: author && !isStaff(author) ? author.id : ticket.requester_id,
    queue_id: ticket.queue_id,
    subject: input.subject ?? ticket.subject,
  };
}

/** POST /tickets/:id/split: the new ticket (201), with the Create's and both AddLink entries' scrip results. */
export async function splitTicket(
  db: Db,
  actor: Actor,
  id: number,
  input: SplitInput,
  notify: NotifySettings,
): Promise<{ ticket: TicketJson; scrip_results: ScripResult[] }> {
  requireStaff(actor);
  return transaction(
    db,
    async (tx) => {
      const old = await lockAndReadTicket(tx, id);
      if (!old) throw notFound('Ticket', id);
      if (old.merged_into !== null)
        throw new AppError('conflict', `Ticket #${id} was merged into #${old.merged_into}: split it there`);
      const plan = await planSplit(tx, actor, id, input);
      // The copies of the message's files: their bytes, stored again with the new Create.
      const files = await tx
        .select({
          filename: attachments.filename,
          content_type: attachments.content_type,
          content: attachments.content,
        })
        .from(attachments)
        .where(eq(attachments.transaction_id, plan.message.id))
        .orderBy(asc(attachments.id));
      const created = await createTicket(
        tx,
        actor,
        {
          queue_id: plan.queue_id,
          subject: plan.subject,
          description: plan.message.body,
          ...(plan.requester_id === null ? {} : { requester_id: plan.requester_id }),
          attachments: files.map((f) => ({ ...f, content: Buffer.from(f.content) })),
          split: true,
        },
        notify,
      );
      const newId = created.ticket.id;
      const link = await addLinkIn(tx, actor.id, newId, { type: 'refers_to', ticket_id: id }, notify, plan.message.id);
      const [ticket] = await ticketsJson(tx, [link.ticket]);
      return { ticket, scrip_results: [...(created.scrip_results ?? []), ...link.scrip_results] };
    },
    { op: 'splitTicket' },
  );
}
