import { and, asc, eq, inArray, sql } from 'drizzle-orm';
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
    .where(eq(ticketTags.ticket_id, p('id')))
    .orderBy(asc(ticketTags.tag)),
);

/** The tags of a batch of tickets, each ticket's sorted, in one statement (a list page is one read). */
export async function tagsOf(conn: Conn, ids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  if (ids.length === 1) {
    out.set(ids[0], sortTags((await tagsOfOne(conn).all({ id: ids[0] })).map((r) => r.tag)));
    return out;
  }
  const rows = await conn
    .select({ ticket: ticketTags.ticket_id, tag: ticketTags.tag })
    .from(ticketTags)
    .where(inArray(ticketTags.ticket_id, ids))
    .orderBy(asc(ticketTags.ticket_id), asc(ticketTags.tag));
  for (const r of rows) out.get(r.ticket)?.push(r.tag);
  // Sorted here, not by the store: PostgreSQL orders text by its collation, SQLite by code point.
  for (const [id, tags] of out) out.set(id, sortTags(tags));
  return out;
}

/** The order JSON carries tags in: by UTF-16 code unit, alike on both stores. */
export const sortTags = (tags: string[]) => [...tags].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
