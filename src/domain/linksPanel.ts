import { type Conn, type Db, preparedForIds } from '../db/port.js';
import { tickets } from '../db/tables.js';
import { type Actor, requireStaff } from './actor.js';
import { LINK_NAMES, type LinksJson } from './links.js';
import { listByFilter } from './tickets/list.js';

// What the ticket page's Links panel reads (SPEC D3, decision 075): the linked tickets' subjects
// and statuses, and the tickets one may link to, found as the list's `q` finds them (a number,
// or words of a subject or a message).

export interface LinkedTicket {
  id: number;
  subject: string;
  status: string;
}

const linkedRows = preparedForIds((db, inIds) =>
  db
    .select({ id: tickets.id, subject: tickets.subject, status: tickets.status })
    .from(tickets)
    .where(inIds(tickets.id)),
);

/** The linked tickets of `links`, by id. */
export async function linkedTickets(conn: Conn, links: LinksJson): Promise<Map<number, LinkedTicket>> {
  const ids = [...new Set(LINK_NAMES.flatMap((n) => links[n]))];
  if (ids.length === 0) return new Map();
  const rows = await linkedRows(conn, ids);
  return new Map(rows.map((r) => [r.id, r]));
}

/** At most 10 tickets other than `id` matching `q` (a number, with or without #, or words): the add form's suggestions. */
export async function linkCandidates(db: Db, actor: Actor, id: number, q: string): Promise<LinkedTicket[]> {
  requireStaff(actor);
  const term = q.trim();
  if (term === '') return [];
  const found = await listByFilter(db, actor, { q: term, limit: 11 });
  return found.tickets
    .filter((t) => t.id !== id)
    .slice(0, 10)
    .map((t) => ({ id: t.id, subject: t.subject, status: t.status }));
}
