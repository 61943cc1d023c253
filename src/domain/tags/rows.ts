import { and, eq, sql } from 'drizzle-orm';
import { type Conn, prepared } from '../../db/port.js';
import { tickets, ticketTags } from '../../db/tables.js';

// The rows of ticket_tags (SPEC D3, decision 074): a leaf the ticket's serializer, the
// transaction recorder (a scrip's add_tag) and the tag use-cases all read and write through.

const p = sql.placeholder;

/** One tag on one ticket; `changes` 0 when the ticket had it already (no change, no entry). */
export const insertTag = prepared((db) =>
  db
    .insert(ticketTags)
    .values({ ticket_id: p('ticket'), tag: p('tag'), created_at: p('now') })
    .onConflictDoNothing(),
);
/** `changes` 0 when the ticket did not have it. */
export const deleteTag = prepared((db) =>
  db.delete(ticketTags).where(and(eq(ticketTags.ticket_id, p('ticket')), eq(ticketTags.tag, p('tag')))),
);
/** A tag change is a change of the ticket: its updated_at moves (lists sorted by -updated see it). */
export const touchTicket = prepared((db) =>
  db
    .update(tickets)
    .set({ updated_at: sql`${p('now')}` })
    .where(eq(tickets.id, p('ticket'))),
);

const tagsOfOne = prepared((db) =>
  db
    .select({ tag: ticketTags.tag })
    .from(ticketTags)
    .where(eq(ticketTags.ticket_id, p('id'))),
);

/** One ticket's tags, sorted (a list page reads its tickets' with their descriptions, src/domain/tickets/serialize.ts). */
export const tagsOfTicket = async (conn: Conn, id: number): Promise<string[]> =>
  sortTags((await tagsOfOne(conn).all({ id })).map((r) => r.tag));

/** The order JSON carries tags in: by UTF-16 code unit, alike on both stores. */
export const sortTags = (tags: string[]) => [...tags].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
