import { and, eq, sql } from 'drizzle-orm';
import { type Conn, type Db, prepared, transaction } from '../../db/port.js';
import { ticketDrafts } from '../../db/tables.js';
import { type Actor, requireStaff } from '../actor.js';
import { nowIso } from '../clock.js';
import { notFound } from '../errors.js';
import { getTicketRow } from './serialize.js';

// SPEC D6 drafts (docs/decisions/054): the reply box's text per staff member and ticket, kept on
// the server so that it survives a reload and another device (another session of the same user),
// never seen by another agent. A draft is only text: saving one writes no history entry, runs no
// scrip and queues no mail. Sending a reply or note removes the writer's draft in the unit of work
// of the message (`clearDraftIn`), so a refused or failed send keeps it.

export const DRAFT_KINDS = ['reply', 'note'] as const;
export type DraftKind = (typeof DRAFT_KINDS)[number];

export interface DraftJson {
  ticket_id: number;
  kind: DraftKind;
  body: string;
  updated_at: string;
}

const p = sql.placeholder;
const draftOf = prepared((db) =>
  db
    .select({
      ticket_id: ticketDrafts.ticket_id,
      kind: ticketDrafts.kind,
      body: ticketDrafts.body,
      updated_at: ticketDrafts.updated_at,
    })
    .from(ticketDrafts)
    .where(and(eq(ticketDrafts.user_id, p('user')), eq(ticketDrafts.ticket_id, p('ticket')))),
);
const deleteDraft = prepared((db) =>
  db.delete(ticketDrafts).where(and(eq(ticketDrafts.user_id, p('user')), eq(ticketDrafts.ticket_id, p('ticket')))),
);

/** A ticket that exists (staff may see every ticket). */
async function existingTicket(conn: Conn, id: number): Promise<void> {
  if (!(await getTicketRow(conn, id))) throw notFound('Ticket', id);
}

/** The actor's draft of a ticket, or null (none, or the actor is not staff: the portal keeps no drafts). */
export async function getDraft(db: Db, actor: Actor, ticketId: number): Promise<DraftJson | null> {
  requireStaff(actor);
  await existingTicket(db, ticketId);
  return draftOfReadTicket(db, actor, { id: ticketId });
}

/** The actor's draft of a ticket they have just read with getTicket: its row is not read again (the ticket page). */
export async function draftOfReadTicket(db: Db, actor: Actor, ticket: { id: number }): Promise<DraftJson | null> {
  requireStaff(actor);
  return (await draftOf(db).get({ user: actor.id, ticket: ticket.id })) ?? null;
}

/** Saves the actor's draft (replacing the one before); text that is empty or only spaces removes it (null). */
export async function saveDraft(
  db: Db,
  actor: Actor,
  ticketId: number,
  input: { body: string; kind: DraftKind },
): Promise<DraftJson | null> {
  requireStaff(actor);
  return transaction(db, async (tx) => {
    await existingTicket(tx, ticketId);
    if (input.body.trim() === '') {
      await deleteDraft(tx).run({ user: actor.id, ticket: ticketId });
      return null;
    }
    const row = { user_id: actor.id, ticket_id: ticketId, kind: input.kind, body: input.body, updated_at: nowIso(tx) };
    await tx
      .insert(ticketDrafts)
      .values(row)
      .onConflictDoUpdate({
        target: [ticketDrafts.user_id, ticketDrafts.ticket_id],
        set: { kind: row.kind, body: row.body, updated_at: row.updated_at },
      });
    return { ticket_id: ticketId, kind: row.kind, body: row.body, updated_at: row.updated_at };
  });
}

/** Removes the actor's draft of a ticket (nothing to remove is fine). */
export async function clearDraft(db: Db, actor: Actor, ticketId: number): Promise<void> {
  requireStaff(actor);
  await transaction(db, async (tx) => {
    await existingTicket(tx, ticketId);
    await clearDraftIn(tx, actor.id, ticketId);
  });
}

/** Inside the unit of work of a sent message: the writer's draft of the ticket goes with it. */
export async function clearDraftIn(tx: Conn, userId: number, ticketId: number): Promise<void> {
  await deleteDraft(tx).run({ user: userId, ticket: ticketId });
}
